import t from 'tap'
import { unitEnvironment, unitWords } from '../../lib/systemd-unit.js'

t.test('words are split the way systemd splits them', async (t) => {
  t.same(unitWords(`A=1 "B=two words" 'C=it''s' D=a\\ b`), ['A=1', 'B=two words', 'C=its', 'D=a b'])
  t.same(unitWords('  '), [])
  t.same(unitWords('""'), [''], 'an empty quoted word is a word')
})

t.test("a unit's environment: Environment= and EnvironmentFile= of [Service], drop-ins after, resets", async (t) => {
  const unit = `[Unit]
Description=x
Environment=NOT=service-section

[Service]
# a comment
Environment=HEARTH_DATA_DIR=/var/lib/hearth
Environment="HEARTH_LOG_LEVEL=info" NODE_ENV=production
EnvironmentFile=-/etc/hearth/hearth.env
EnvironmentFile=/etc/hearth/required.env
ExecStart=/usr/lib/hearth/node \\
  /usr/lib/hearth/hearthd.mjs
Environment=AFTER=continuation
`
  t.same(unitEnvironment([unit]), {
    environment: { HEARTH_DATA_DIR: '/var/lib/hearth', HEARTH_LOG_LEVEL: 'info', NODE_ENV: 'production', AFTER: 'continuation' },
    environmentFiles: [
      { path: '/etc/hearth/hearth.env', optional: true },
      { path: '/etc/hearth/required.env', optional: false },
    ],
  })
  const dropin = `[Service]\nEnvironment=HEARTH_LOG_LEVEL=debug\nEnvironmentFile=\nEnvironmentFile=-/srv/other.env\n`
  t.same(unitEnvironment([unit, dropin]), {
    environment: { HEARTH_DATA_DIR: '/var/lib/hearth', HEARTH_LOG_LEVEL: 'debug', NODE_ENV: 'production', AFTER: 'continuation' },
    environmentFiles: [{ path: '/srv/other.env', optional: true }],
  })
  t.same(unitEnvironment([unit, '[Service]\nEnvironment=\nEnvironment=ONLY=this\n']).environment, { ONLY: 'this' })
})
