import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { addUser, auth, build, owner } from '../../../test/helper.js'
import { cli, quietEnv, tempDir } from '../../../test/cli-process.js'

const run = promisify(execFile)

t.test('scheduled backups run on HEARTH_BACKUP_CRON, keep HEARTH_BACKUP_KEEP, and are listed for admins', async (t) => {
  const dir = join(tempDir(t), 'backups')
  const app = await build(t, { env: { HEARTH_BACKUP_CRON: '* * * * * *', HEARTH_BACKUP_DIR: dir, HEARTH_BACKUP_KEEP: '2' } })
  const o = await owner(app)
  const member = await addUser(app, o.token)
  // Every second: wait until several have run, so retention has deleted some.
  const deadline = Date.now() + 20_000
  let names: string[] = []
  while (Date.now() < deadline) {
    // The folder appears with the first scheduled run.
    names = existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isFile() && !d.name.startsWith('.') ? [d.name] : []))
      : []
    if (
      names.length === 2 &&
      (await app.inject({ method: 'GET', url: '/api/v1/admin/backups', headers: auth(o.token) })).json().data.length === 2
    ) {
      await new Promise((r) => setTimeout(r, 2200))
      break
    }
    await new Promise((r) => setTimeout(r, 200))
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
    env: { HEARTH_BACKUP_CRON: '* * * * * *', HEARTH_BACKUP_DIR: dir, HEARTH_BACKUP_PASSPHRASE: 'scheduled secret' },
  })
  const o = await owner(app)
  // A backup that started a whole second after the owner was created holds the owner.
  const after = new Date(Date.now() + 1000).toISOString().replace(/\.\d+Z$/, 'Z')
  let list: Array<{ name: string; encrypted: boolean; created_at: string }> = []
  for (let i = 0; i < 150 && !list.some((b) => b.created_at > after); i++) {
    await new Promise((r) => setTimeout(r, 200))
    list = (await app.inject({ method: 'GET', url: '/api/v1/admin/backups', headers: auth(o.token) })).json().data
  }
  t.match(list[0], { name: /^hearth-\d{8}T\d{6}Z\.tar\.gz\.enc$/, encrypted: true })
  const target = quietEnv(join(root, 'restored'))
  const restored = await cli(['restore', join(dir, (list[0] as { name: string }).name)], {
    ...target,
    HEARTH_BACKUP_PASSPHRASE: 'scheduled secret',
  })
  t.equal(restored.code, 0, restored.stderr)
  t.match((await cli(['users', 'list'], target)).stdout, /owner@example\.test\towner/)
})
