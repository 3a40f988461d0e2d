import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { call, cli, quietEnv, startDaemon, tempDir } from '../../../test/cli-process.js'
import { hasTool } from '../../dav/test/daemon.js'
import { TestClient } from '../../realtime/test/ws-client.js'

const run = promisify(execFile)
const OWNER = { email: 'owner@full.test', password: 'owner password 1' }

/** A 16 MB tmpfs is a target disk the test can fill; mounting needs root (the tests and CI run as root). */
async function smallDisk(dir: string): Promise<string | false> {
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir])
    return false
  } catch (e) {
    return `cannot mount a tmpfs to fill (needs root): ${(e as Error).message.split('\n')[0]}`
  }
}

const root = tempDir(t, 'hearth-offsite-full-')
const disk = join(root, 'target')
mkdirSync(disk)
const skip = hasTool('restic', ['version']) ? await smallDisk(disk) : 'restic is not installed (apt install restic; .ci/run installs it)'
if (skip) t.comment(`skipped: ${skip}`)

t.test('a full disk on the target: a clear error in the status, the daemon stays up, the next run succeeds', { skip }, async (t) => {
  // Lazy, so a restic still holding a file there (a failed assertion mid-run) cannot leave the mount behind.
  t.teardown(() => run('umount', ['-l', disk]).then(() => undefined))

  const dataDir = join(root, 'data')
  const extra = { HEARTH_OFFSITE_REPOSITORY: join(disk, 'repo'), HEARTH_OFFSITE_CRON: '' }
  const env = { ...quietEnv(dataDir), ...extra }
  t.equal((await cli(['setup', '--email', OWNER.email, '--password', OWNER.password], env)).code, 0)
  // Random bytes do not compress or deduplicate: 40 MB of photos cannot fit on 16 MB.
  mkdirSync(join(dataDir, 'photos'))
  for (let i = 0; i < 5; i++) writeFileSync(join(dataDir, 'photos', `p${i}.jpg`), randomBytes(8 * 1024 * 1024))

  const daemon = await startDaemon(t, dataDir, extra)
  const login = await call(daemon.base, 'POST', '/auth/login', undefined, OWNER)
  const token = (login.json.data as { accessToken: string }).accessToken
  const ws = await TestClient.open(`${daemon.base.replace(/^http/, 'ws')}/ws`, { authorization: `Bearer ${token}` })
  t.teardown(() => ws.ws.close())
  const finished = (after: number) =>
    ws.next(
      (m) => m.type === 'protection.progress' && m.data.operation === 'run' && m.data.state !== 'running' && (m.seq ?? 0) > after,
      240_000,
    )
  const lastSeq = () => ws.messages.at(-1)?.seq ?? 0
  const status = async () => {
    const res = await call(daemon.base, 'GET', '/admin/protection', token)
    t.equal(res.status, 200)
    return res.json.data as { offsite: { ok: boolean | null; error: string | null }; advice: string }
  }

  let mark = lastSeq()
  t.equal((await call(daemon.base, 'POST', '/admin/protection/offsite/run', token)).status, 202)
  const failed = await finished(mark)
  t.equal(failed.data.state, 'failed', 'the run fails')
  const full = await status()
  t.equal(full.offsite.ok, false)
  const error = full.offsite.error ?? ''
  t.comment(`the status says: ${error}`)
  t.match(
    error,
    /^the off-site target is full \(no space left on device\): free space there/,
    'the error says first that the target is full',
  )
  t.notMatch(error, /\n\s+at |goroutine|\.go:\d+/, 'no stack trace')
  const password = /HEARTH_OFFSITE_PASSWORD=(\S+)/.exec((await cli(['offsite', 'kit'], env)).stdout)?.[1] ?? ''
  t.ok(password.length >= 24, 'the kit gives the password to look for')
  t.notOk(error.includes(password) || full.advice.includes(password), 'the password is not in the status')
  t.match(full.advice, /failed/)
  t.equal((await call(daemon.base, 'GET', '/health')).status, 200, 'the daemon is still up')

  // More room on the same disk (its half-written repository kept): the next run succeeds.
  await run('mount', ['-o', 'remount,size=128m', disk])
  mark = lastSeq()
  t.equal((await call(daemon.base, 'POST', '/admin/protection/offsite/run', token)).status, 202)
  const done = await finished(mark)
  t.equal(done.data.state, 'done', `the next run succeeds: ${done.data.error}`)
  const after = await status()
  t.equal(after.offsite.ok, true)
  t.equal(after.offsite.error, null)
  await daemon.stop()
  const check = await cli(['offsite', 'check'], env)
  t.equal(check.code, 0, `the repository checks sound: ${check.stdout.trim()} ${check.stderr.trim()}`)
})
