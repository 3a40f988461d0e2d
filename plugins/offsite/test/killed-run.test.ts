import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { call, cli, quietEnv, startDaemon, tempDir } from '../../../test/cli-process.js'
import { hasTool } from '../../dav/test/daemon.js'
import { TestClient } from '../../realtime/test/ws-client.js'

const skip = hasTool('restic', ['version']) ? false : 'restic is not installed (apt install restic; .ci/run installs it)'
const OWNER = { email: 'owner@killed.test', password: 'owner password 1' }

t.test('kill -9 of the daemon during an off-site run: the repository checks sound and the next run succeeds', { skip }, async (t) => {
  const root = tempDir(t, 'hearth-offsite-killed-')
  const dataDir = join(root, 'data')
  const extra = { HEARTH_OFFSITE_REPOSITORY: join(root, 'repo'), HEARTH_OFFSITE_CRON: '' }
  const env = { ...quietEnv(dataDir), ...extra }
  t.equal((await cli(['setup', '--email', OWNER.email, '--password', OWNER.password], env)).code, 0)
  // Enough to send that the run is still in restic's hands when the daemon is killed.
  mkdirSync(join(dataDir, 'photos'))
  for (let i = 0; i < 8; i++) writeFileSync(join(dataDir, 'photos', `p${i}.jpg`), randomBytes(8 * 1024 * 1024))

  const daemon = await startDaemon(t, dataDir, extra)
  const login = await call(daemon.base, 'POST', '/auth/login', undefined, OWNER)
  const token = (login.json.data as { accessToken: string }).accessToken
  const ws = await TestClient.open(`${daemon.base.replace(/^http/, 'ws')}/ws`, { authorization: `Bearer ${token}` })
  t.equal((await call(daemon.base, 'POST', '/admin/protection/offsite/run', token)).status, 202)
  await ws.next((m) => m.type === 'protection.progress' && m.data.stage === 'backup', 120_000)
  const exited = new Promise((resolve) => daemon.child.once('exit', resolve))
  daemon.child.kill('SIGKILL')
  await exited
  ws.ws.terminate()
  t.pass('the daemon was killed while restic was sending')

  const check = await cli(['offsite', 'check'], env)
  t.equal(check.code, 0, `restic check passes after the kill: ${check.stdout.trim()} ${check.stderr.trim()}`)

  const again = await startDaemon(t, dataDir, extra)
  const relog = await call(again.base, 'POST', '/auth/login', undefined, OWNER)
  const token2 = (relog.json.data as { accessToken: string }).accessToken
  const ws2 = await TestClient.open(`${again.base.replace(/^http/, 'ws')}/ws`, { authorization: `Bearer ${token2}` })
  t.teardown(() => ws2.ws.close())
  t.equal((await call(again.base, 'POST', '/admin/protection/offsite/run', token2)).status, 202)
  const end = await ws2.next((m) => m.type === 'protection.progress' && m.data.state !== 'running', 240_000)
  t.equal(end.data.state, 'done', `the next run succeeds: ${end.data.error}`)
  const status = (await call(again.base, 'GET', '/admin/protection', token2)).json.data as { offsite: { ok: boolean } }
  t.equal(status.offsite.ok, true)
  const snapshots = await cli(['offsite', 'snapshots'], env)
  t.equal(snapshots.code, 0)
  t.ok(snapshots.stdout.trim().split('\n').length >= 1, 'its snapshot is listed')
})
