import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { addUser, auth, build, owner } from '../../../test/helper.js'
import { cli, quietEnv, tempDir } from '../../../test/cli-process.js'

const run = promisify(execFile)

t.test('scheduled backups run on HEARTH_BACKUP_CRON, keep HEARTH_BACKUP_KEEP, and are listed for admins', async (t) => {
  const dir = join(tempDir(t), 'backups')
  // Backups are named by the second they start at: a clock of the test's own gives each run its second.
  let clock = Date.now()
  const app = await build(t, {
    now: () => clock,
    env: { HEARTH_BACKUP_CRON: '30 3 * * *', HEARTH_BACKUP_DIR: dir, HEARTH_BACKUP_KEEP: '2' },
  })
  const o = await owner(app)
  const member = await addUser(app, o.token)
  const job = app.hearth.scheduler.get('backups')
  t.ok(job, 'the backup job is scheduled')
  t.equal(job?.nextRun()?.getMinutes(), 30)
  // Three runs of the scheduled job itself (the schedule is daily: the test does not wait for it).
  for (let i = 0; i < 3; i++) {
    clock += 1000
    await job?.runNow()
  }
  const res = await app.inject({ method: 'GET', url: '/api/v1/admin/backups', headers: auth(o.token) })
  t.equal(res.statusCode, 200)
  const list = res.json().data as Array<{ name: string; size_bytes: number; created_at: string; encrypted: boolean }>
  t.equal(list.length, 2, 'retention keeps two')
  t.match(list[0], {
    name: /^hearth-\d{8}T\d{6}Z\.tar\.gz$/,
    size_bytes: Number,
    created_at: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    encrypted: false,
  })
  t.ok((list[0] as { name: string }).name > (list[1] as { name: string }).name, 'newest first')
  t.equal(res.json().meta.total, 2)
  const { stdout } = await run('tar', ['-tzf', join(dir, (list[0] as { name: string }).name)])
  t.same(stdout.trim().split('\n'), ['manifest.json', 'hearth.db', 'hearth.env'], 'each is a whole archive')

  const forbidden = await app.inject({ method: 'GET', url: '/api/v1/admin/backups', headers: auth(member.token) })
  t.equal(forbidden.statusCode, 403, 'not for a plain user')
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/admin/backups' })).statusCode, 401)
})

t.test('a backup schedule more often than every 15 minutes, or with a seconds field, stops the start', async (t) => {
  for (const cron of ['* * * * * *', '*/5 * * * *', '0,10 * * * *']) {
    await t.rejects(build(t, { env: { HEARTH_BACKUP_CRON: cron } }), /HEARTH_BACKUP_CRON.*15 minutes/, cron)
  }
  await t.rejects(build(t, { env: { HEARTH_BACKUP_CRON: 'nightly' } }), /HEARTH_BACKUP_CRON.*not a cron expression/)
})

t.test('no schedule: nothing is written, the listing is empty', async (t) => {
  const dir = join(tempDir(t), 'none')
  const app = await build(t, { env: { HEARTH_BACKUP_DIR: dir } })
  const o = await owner(app)
  const res = await app.inject({ method: 'GET', url: '/api/v1/admin/backups', headers: auth(o.token) })
  t.same(res.json().data, [])
})

t.test('HEARTH_BACKUP_PASSPHRASE encrypts scheduled backups, and hearth restore opens them with it', async (t) => {
  const root = tempDir(t)
  const dir = join(root, 'enc')
  const app = await build(t, {
    env: { HEARTH_BACKUP_CRON: '0 3 * * *', HEARTH_BACKUP_DIR: dir, HEARTH_BACKUP_PASSPHRASE: 'scheduled secret' },
  })
  const o = await owner(app)
  await app.hearth.scheduler.get('backups')?.runNow()
  const list = (await app.inject({ method: 'GET', url: '/api/v1/admin/backups', headers: auth(o.token) })).json().data as Array<{
    name: string
    encrypted: boolean
  }>
  t.match(list[0], { name: /^hearth-\d{8}T\d{6}Z\.tar\.gz\.enc$/, encrypted: true })
  const target = quietEnv(join(root, 'restored'))
  const restored = await cli(['restore', join(dir, (list[0] as { name: string }).name)], {
    ...target,
    HEARTH_BACKUP_PASSPHRASE: 'scheduled secret',
  })
  t.equal(restored.code, 0, restored.stderr)
  t.match((await cli(['users', 'list'], target)).stdout, /owner@example\.test\towner/)
})
