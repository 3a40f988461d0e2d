import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { addUser, build, owner } from '../../../test/helper.js'
import { parseKeep } from '../keep.js'

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

t.test('without a repository: the data alone, advice to set one, and no operation to start', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const res = await app.inject({ method: 'GET', url: '/api/v1/admin/protection', headers: bearer(o.token) })
  t.equal(res.statusCode, 200)
  const p = res.json().data
  t.same(p.offsite, { last_at: null, ok: null, error: null, repository: null, snapshot_id: null, size_bytes: null })
  t.same(p.local, { last_at: null, ok: null, error: null, count: 0 })
  t.equal(p.score, 1)
  t.equal(p.kit_confirmed, false)
  t.match(p.advice, /HEARTH_OFFSITE_REPOSITORY/)
  const run = await app.inject({ method: 'POST', url: '/api/v1/admin/protection/offsite/run', headers: bearer(o.token) })
  t.equal(run.statusCode, 422)
  t.equal(run.json().error.code, 'UNPROCESSABLE')
  const user = await addUser(app, o.token)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/admin/protection', headers: bearer(user.token) })).statusCode, 403)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/admin/protection' })).statusCode, 401)
})

t.test('a repository URL password is masked in the answer; the generated password goes to hearth.env only', async (t) => {
  const app = await build(t, {
    env: { HEARTH_OFFSITE_REPOSITORY: 'rest:https://alice:hunter2hunter2@backup.example:8000/hearth', HEARTH_OFFSITE_CRON: '' },
  })
  const o = await owner(app)
  const res = await app.inject({ method: 'GET', url: '/api/v1/admin/protection', headers: bearer(o.token) })
  t.equal(res.json().data.offsite.repository, 'rest:https://alice:***@backup.example:8000/hearth')
  t.notOk(res.body.includes('hunter2hunter2'))
  t.match(res.json().data.advice, /hearth offsite run/)
  const env = readFileSync(join(app.dataDir, 'hearth.env'), 'utf8')
  const password = /^HEARTH_OFFSITE_PASSWORD=(\S+)$/m.exec(env)?.[1]
  t.ok(password && password.length >= 32, 'a password was generated into hearth.env')
  t.notOk(res.body.includes(password as string))
})

t.test('settings that would misbehave stop the start with the variable named', async (t) => {
  await t.rejects(build(t, { env: { HEARTH_OFFSITE_KEEP: 'daily=7,fortnightly=2' } }), /HEARTH_OFFSITE_KEEP: "fortnightly=2"/)
  await t.rejects(build(t, { env: { HEARTH_OFFSITE_CRON: '*/5 * * * *' } }), /HEARTH_OFFSITE_CRON: .*15 minutes/)
  const exploit = 'sftp:bob\\-oProxyCommand=touch${IFS}pwned@example.invalid:/r'
  await t.rejects(build(t, { env: { HEARTH_OFFSITE_REPOSITORY: exploit } }), /HEARTH_OFFSITE_REPOSITORY: the user/)
})

t.test('retention rules', async (t) => {
  t.same(parseKeep('daily=7,weekly=4,monthly=12'), { daily: 7, weekly: 4, monthly: 12 })
  t.same(parseKeep(' last = 3 '), { last: 3 })
  t.match(parseKeep('daily=0'), /at least 1/)
  t.match(parseKeep('daily'), /not period=count/)
  t.match(parseKeep(''), /not period=count/)
})
