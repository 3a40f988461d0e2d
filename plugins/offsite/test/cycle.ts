import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, closeSync, statSync, writeSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import { call, cli, quietEnv, startDaemon, tempDir } from '../../../test/cli-process.js'
import { TestClient } from '../../realtime/test/ws-client.js'
import type { protectionStatus } from '../protection.js'

export interface OffsiteTarget {
  /** HEARTH_OFFSITE_REPOSITORY. */
  repository: string
  /** The repository's folder on this machine, where the test damages a pack file. */
  folder: string
  /** SFTP: accept the public key `hearth offsite key` printed for a data folder. */
  authorize?(publicKey: string): void
}

/** Every file under a folder, largest first. */
function filesBySize(dir: string): Array<{ path: string; size: number }> {
  const out: Array<{ path: string; size: number }> = []
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) walk(p)
      else out.push({ path: p, size: statSync(p).size })
    }
  }
  walk(dir)
  return out.sort((a, b) => b.size - a.size)
}

/** Flips 64 bytes in the middle of the repository's largest pack file (where the database and photos are). */
function damageLargestPack(folder: string): string {
  const pack = filesBySize(join(folder, 'data'))[0]
  if (!pack) throw new Error(`no pack file under ${folder}/data`)
  const fd = openSync(pack.path, 'r+')
  try {
    writeSync(fd, randomBytes(64), 0, 64, Math.floor(pack.size / 2))
  } finally {
    closeSync(fd)
  }
  return pack.path
}

const OWNER = { email: 'owner@offsite.test', password: 'owner password 1' }

/**
 * The whole off-site cycle against a real restic repository, through the daemon's API, its realtime
 * events and the CLI: run, snapshots, drill, the emergency kit, a restore into a fresh data folder
 * that a daemon then starts on, a damaged pack file found by check and drill and refused by restore.
 * Throughout, the repository password never appears in an answer, an event, a log line or the database.
 */
export async function offsiteCycle(t: Test, target: OffsiteTarget): Promise<void> {
  const root = tempDir(t, 'hearth-offsite-')
  const dataDir = join(root, 'data')
  const extra = { HEARTH_OFFSITE_REPOSITORY: target.repository, HEARTH_OFFSITE_CRON: '', HEARTH_LOG_LEVEL: 'info' }
  const env = { ...quietEnv(dataDir), ...extra }
  t.equal((await cli(['setup', '--email', OWNER.email, '--password', OWNER.password], env)).code, 0)
  if (target.authorize) {
    const key = await cli(['offsite', 'key'], env)
    t.equal(key.code, 0, key.stderr)
    target.authorize(key.stdout.trim())
  }
  mkdirSync(join(dataDir, 'photos'))
  const photo = randomBytes(300 * 1024)
  writeFileSync(join(dataDir, 'photos', 'beach.jpg'), photo)

  let logs = ''
  const answers: string[] = []
  const daemon = await startDaemon(t, dataDir, extra, null, (s) => (logs += s))
  const api = async (method: string, path: string, token?: string, body?: unknown) => {
    const res = await call(daemon.base, method, path, token, body)
    answers.push(JSON.stringify(res.json))
    return res
  }
  const login = await api('POST', '/auth/login', undefined, OWNER)
  const token = (login.json.data as { accessToken: string }).accessToken
  for (let i = 0; i < 25; i++) t.equal((await api('POST', '/notes', token, { content: `# note ${i}\nkept off-site` })).status, 201)

  const protection = async () => {
    const res = await api('GET', '/admin/protection', token)
    t.equal(res.status, 200)
    return res.json.data as ReturnType<typeof protectionStatus>
  }
  const before = await protection()
  t.equal(before.offsite.ok, null, 'nothing sent yet')
  t.equal(before.offsite.repository, target.repository)
  t.equal(before.score, 1, 'only the data itself')
  t.match(before.advice, /hearth offsite run/)

  const user = join(root, 'user-password')
  writeFileSync(user, 'user password 1\n')
  t.equal((await cli(['users', 'create', 'user@offsite.test', '--password-file', user], env)).code, 0)
  const userLogin = await api('POST', '/auth/login', undefined, { email: 'user@offsite.test', password: 'user password 1' })
  const userToken = (userLogin.json.data as { accessToken: string }).accessToken
  t.equal((await api('GET', '/admin/protection', userToken)).status, 403, 'a user who is no admin may not read it')
  t.equal((await api('POST', '/admin/protection/offsite/run', userToken)).status, 403, 'nor start a run')

  const ws = await TestClient.open(`${daemon.base.replace(/^http/, 'ws')}/ws`, { authorization: `Bearer ${token}` })
  t.teardown(() => ws.ws.close())
  const finished = (operation: string, after: number) =>
    ws.next(
      (m) => m.type === 'protection.progress' && m.data.operation === operation && m.data.state !== 'running' && (m.seq ?? 0) > after,
      240_000,
    )
  const lastSeq = () => ws.messages.at(-1)?.seq ?? 0

  let mark = lastSeq()
  const run = await api('POST', '/admin/protection/offsite/run', token)
  t.equal(run.status, 202)
  t.same(run.json.data, { operation: 'run', started: true, running: 'run' })
  const ran = await finished('run', mark)
  t.equal(ran.data.state, 'done', JSON.stringify(ran.data))
  t.ok(
    ws.of('protection.progress').some((m) => m.data.state === 'running' && m.data.stage === 'backup'),
    'the backup reported its progress as protection.progress events',
  )
  const afterRun = await protection()
  t.equal(afterRun.offsite.ok, true)
  t.match(afterRun.offsite.snapshot_id, /^[0-9a-f]{8}/)
  t.ok((afterRun.offsite.size_bytes ?? 0) >= photo.length, `the snapshot holds ${afterRun.offsite.size_bytes} bytes`)

  const listed = await cli(['offsite', 'snapshots'], env)
  t.equal(listed.code, 0, listed.stderr)
  t.equal(listed.stdout.trim().split('\n').length, 1, 'one snapshot')
  t.match(listed.stdout, /hearth-version=\S+ .*schema-core=\d+ .*schema-records=\d+/, 'tagged with the Hearth and schema versions')

  mark = lastSeq()
  t.equal((await api('POST', '/admin/protection/offsite/drill', token)).status, 202)
  t.equal((await finished('drill', mark)).data.state, 'done')
  const drilled = await protection()
  t.equal(drilled.drill.ok, true, 'the restore drill passed')
  t.equal(drilled.score, 2, 'the data and a drilled off-site copy (no local backup scheduled)')
  t.equal(drilled.kit_confirmed, false)
  t.match(drilled.advice, /hearth offsite kit/)

  const kit = await cli(['offsite', 'kit'], env)
  t.equal(kit.code, 0, kit.stderr)
  const password = /HEARTH_OFFSITE_PASSWORD=(\S+)/.exec(kit.stdout)?.[1] as string
  t.ok(password && password.length >= 24, 'the kit prints the generated password')
  t.equal((await cli(['offsite', 'kit'], env)).code, 1, 'once')
  t.equal((await protection()).kit_confirmed, true)

  // A new box: the kit's two lines, a fresh data folder, and the daemon starts on the restored data.
  const fresh = join(root, 'fresh')
  const freshEnv = { ...quietEnv(fresh), HEARTH_OFFSITE_REPOSITORY: target.repository, HEARTH_OFFSITE_PASSWORD: password }
  if (target.authorize) target.authorize((await cli(['offsite', 'key'], freshEnv)).stdout.trim())
  const restored = await cli(['offsite', 'restore'], freshEnv)
  t.equal(restored.code, 0, restored.stderr)
  t.same(readFileSync(join(fresh, 'photos', 'beach.jpg')), photo, 'the photos came back')
  const second = await startDaemon(t, fresh, { HEARTH_RESTORE_KEEP: '0' }, null, (s) => (logs += s))
  const relog = await call(second.base, 'POST', '/auth/login', undefined, OWNER)
  t.equal(relog.status, 200, 'the owner signs in on the restored data')
  const notes = await call(second.base, 'GET', '/notes?limit=100', (relog.json.data as { accessToken: string }).accessToken)
  t.equal((notes.json.data as unknown[]).length, 25, 'every note is back')
  await second.stop()

  // Damage: check and drill find it, the status says so, a restore refuses and touches nothing.
  const pack = damageLargestPack(target.folder)
  t.comment(`flipped 64 bytes in ${pack}`)
  mark = lastSeq()
  t.equal((await api('POST', '/admin/protection/offsite/check', token)).status, 202)
  t.equal((await finished('check', mark)).data.state, 'failed', 'the check fails')
  mark = lastSeq()
  t.equal((await api('POST', '/admin/protection/offsite/drill', token)).status, 202)
  t.equal((await finished('drill', mark)).data.state, 'failed', 'the drill fails')
  const damaged = await protection()
  t.equal(damaged.check.ok, false)
  t.ok(damaged.check.error, `check error: ${damaged.check.error}`)
  t.equal(damaged.drill.ok, false)
  t.equal(damaged.score, 1, 'the off-site copy no longer counts')
  t.match(damaged.advice, /damaged/)
  const doctor = await cli(['doctor', '--json'], env)
  const findings = JSON.parse(doctor.stdout) as Array<{ check: string; status: string }>
  t.match(
    findings.find((f) => f.check === 'off-site check'),
    { status: 'fail' },
    'hearth doctor reports the failed check',
  )
  t.match(
    findings.find((f) => f.check === 'off-site run'),
    { status: 'ok' },
  )

  // The restored box's folder is the victim: a refused restore leaves it as it was, and nothing beside it.
  const listing = () => [readdirSync(fresh).sort(), readdirSync(root).sort(), readFileSync(join(fresh, 'hearth.db'))]
  const untouched = listing()
  const refused = await cli(['offsite', 'restore'], freshEnv)
  t.equal(refused.code, 4, `a damaged snapshot is refused: ${refused.stderr.trim()}`)
  t.same(listing(), untouched, 'the data folder is untouched and nothing is left beside it')

  await daemon.stop()
  t.notOk(
    answers.some((a) => a.includes(password)),
    'the password is in no answer',
  )
  t.notOk(
    ws.messages.some((m) => JSON.stringify(m).includes(password)),
    'nor in any event',
  )
  t.ok(logs.length > 0, `the daemons logged ${logs.length} bytes`)
  t.notOk(logs.includes(password), 'nor in the logs')
  for (const dir of [dataDir, fresh])
    for (const file of ['hearth.db', 'hearth.db-wal', join('offsite', 'status.json')]) {
      const path = join(dir, file)
      if (existsSync(path)) t.notOk(readFileSync(path).includes(password), `nor in ${file}`)
    }
}
