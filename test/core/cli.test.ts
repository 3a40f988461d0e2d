import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { build, owner } from '../helper.js'

const run = promisify(execFile)
const CLI = new URL('../../scripts/hearth.js', import.meta.url).pathname

t.test('hearth users reset-token prints a token that resets the password through the API', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const env = { ...process.env, HEARTH_DATA_DIR: app.dataDir }
  const { stdout } = await run(process.execPath, [CLI, 'users', 'reset-token', o.email], { env })
  const token = stdout.split('\n')[0]
  t.match(token, /^hpr_/)
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/reset-password', payload: { token, new_password: 'from the cli 1' } })
  t.equal(res.statusCode, 200)
  const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password: 'from the cli 1' } })
  t.equal(login.statusCode, 200)

  const missing = await run(process.execPath, [CLI, 'users', 'reset-token', 'nobody@x.test'], { env }).catch((e) => e)
  t.equal(missing.code, 1)

  const target = join(app.dataDir, 'cli-backup.db')
  await run(process.execPath, [CLI, 'backup', target], { env })
  t.ok(existsSync(target), 'backup written while the daemon holds the database')
})
