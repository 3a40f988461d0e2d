import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { call, cli, quietEnv, startDaemon, tempDir } from '../../../test/cli-process.js'

/**
 * The round trip under write load: a daemon process takes writes while `hearth backup`
 * (another process) copies the database; after a restore every write acknowledged before
 * the backup started is there, and SQLite's integrity_check passes.
 */
t.test('backup while the daemon takes writes, restore, and every write acknowledged before the backup is back', async (t) => {
  const root = tempDir(t)
  const dataDir = join(root, 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(['setup', '--email', 'owner@load.test', '--password', 'owner password 1'], env)).code, 0)
  const daemon = await startDaemon(t, dataDir, { HEARTH_RATE_LIMIT: '1000000' })
  const login = await call(daemon.base, 'POST', '/auth/login', undefined, { email: 'owner@load.test', password: 'owner password 1' })
  const token = (login.json.data as { accessToken: string }).accessToken

  const acked: Array<{ id: string; at: number }> = []
  const write = async (i: number, size = 200) => {
    const res = await call(daemon.base, 'POST', '/notes', token, { content: `# load ${i}\n${'x'.repeat(size)}`, tags: ['load'] })
    if (res.status !== 201) throw new Error(`write ${i}: ${res.status} ${JSON.stringify(res.json)}`)
    acked.push({ id: (res.json.data as { id: string }).id, at: Date.now() })
  }
  // Enough pages that the backup copies in several steps, so the daemon's writes land between them.
  for (let i = 0; i < 150; i++) await write(i, 8000)

  let writing = true
  let n = 150
  const writers = [0, 1].map(async () => {
    while (writing) await write(n++)
  })
  await new Promise((r) => setTimeout(r, 300))
  const startedAt = Date.now()
  const before = acked.filter((a) => a.at < startedAt).map((a) => a.id)
  const archive = join(root, 'under-load.tar.gz')
  const backup = await cli(['backup', archive], env)
  const duringBackup = acked.filter((a) => a.at >= startedAt).length
  writing = false
  await Promise.all(writers)
  t.equal(backup.code, 0, backup.stderr)
  t.ok(duringBackup > 0, `the daemon acknowledged ${duringBackup} writes while the backup ran`)
  t.match(backup.stderr, /database: 100%/, 'progress as plain lines without a terminal')

  await daemon.stop()
  const restored = await cli(['restore', archive], env)
  t.equal(restored.code, 0, restored.stderr)
  const asides = readdirSync(root).filter((n) => n.startsWith('data.before-restore-'))
  t.equal(asides.length, 1, 'the previous data folder is kept aside')

  const db = new Database(join(dataDir, 'hearth.db'), { readonly: true })
  t.same(db.pragma('integrity_check'), [{ integrity_check: 'ok' }], 'integrity_check passes on the restored database')
  db.close()

  const again = await startDaemon(t, dataDir, { HEARTH_RESTORE_KEEP: '0' })
  t.notOk(
    existsSync(join(root, asides[0] as string)),
    'started on the restored folder, the daemon removes the one set aside (HEARTH_RESTORE_KEEP=0)',
  )
  const relog = await call(again.base, 'POST', '/auth/login', undefined, { email: 'owner@load.test', password: 'owner password 1' })
  t.equal(relog.status, 200, 'the restored secrets and users sign in')
  const token2 = (relog.json.data as { accessToken: string }).accessToken
  let missing = 0
  for (const id of before) if ((await call(again.base, 'GET', `/notes/${id}`, token2)).status !== 200) missing++
  t.equal(missing, 0, `all ${before.length} writes acknowledged before the backup are restored`)
})
