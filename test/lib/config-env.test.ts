import { Type } from '@sinclair/typebox'
import t from 'tap'
import { env } from '../../lib/config-env.js'

t.test('env() names the variable a config property is read from and keeps the schema', async (t) => {
  const port = env('HEARTH_X_PORT', Type.Integer({ minimum: 1, default: 80 }))
  t.equal(port.env, 'HEARTH_X_PORT')
  t.equal(port.minimum, 1)
  t.equal(port.default, 80)
  t.equal(port.type, 'integer')
})
