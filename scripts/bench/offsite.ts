import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { buildApp } from '../../core/app.js'
import { ROOT } from './harness.js'

/**
 * A first and an incremental `hearth offsite run` of a data folder with notes and photos, beside
 * restic alone backing up the same folder into its own repository: seconds and bytes added each.
 * The default is small enough for a shared machine; HEARTH_BENCH_OFFSITE_FULL=1 uses 100k notes and
 * 1 GB of photos. Photos are random bytes, so neither side can compress or deduplicate them.
 */
const FULL = process.env.HEARTH_BENCH_OFFSITE_FULL === '1'
const NOTES = FULL ? 100_000 : 2_000
const PHOTO_BYTES = 4 * 1024 * 1024
const PHOTOS = FULL ? 256 : 8
const run = promisify(execFile)
const CLI = join(ROOT, 'dist', 'scripts', 'hearth.js')
const RESTIC_PASSWORD = 'bench password for restic alone'

const seconds = (since: number) => Math.round((performance.now() - since) / 10) / 100

async function fill(dataDir: string, notes: number, from: number): Promise<void> {
  const app = await buildApp({
    env: {
      HEARTH_DATA_DIR: dataDir,
      HEARTH_LOG_LEVEL: 'silent',
      HEARTH_DNS_PORT: '0',
      HEARTH_PLUGINS_DIR: '',
      // One client writing 100,000 notes in a row is the bench, not an abuse: the per-token limit is lifted.
      HEARTH_RATE_LIMIT: '100000000',
    },
  })
  try {
    const email = 'bench@offsite.test'
    const password = 'bench password 1'
    if (from === 0) await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: { email, password } })
    const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } })
    const headers = { authorization: `Bearer ${(login.json() as { data: { accessToken: string } }).data.accessToken}` }
    for (let i = from; i < from + notes; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/notes',
        headers,
        payload: { content: `# note ${i}\n${'kept off-site. '.repeat(20)}` },
      })
      if (res.statusCode !== 201) throw new Error(`note ${i}: ${res.statusCode} ${res.body}`)
    }
  } finally {
    await app.close()
  }
}

function addPhotos(dataDir: string, count: number, from: number): void {
  mkdirSync(join(dataDir, 'photos'), { recursive: true })
  for (let i = from; i < from + count; i++) writeFileSync(join(dataDir, 'photos', `p${i}.jpg`), randomBytes(PHOTO_BYTES))
}

/** `hearth offsite run`: what it prints names the bytes the snapshot holds and the new ones. */
async function hearthRun(env: NodeJS.ProcessEnv): Promise<{ s: number; added: number }> {
  const started = performance.now()
  const { stdout } = await run(process.execPath, [CLI, 'offsite', 'run'], { env, maxBuffer: 16 << 20 })
  const s = seconds(started)
  const added = /\((\d+) bytes, (\d+) new\)/.exec(stdout)
  if (!added) throw new Error(`hearth offsite run printed: ${stdout.slice(-300)}`)
  return { s, added: Number(added[2]) }
}

/** restic alone on the same folder, leaving out Hearth's own restic cache and off-site state. */
async function resticRun(repo: string, cache: string, dataDir: string): Promise<{ s: number; added: number }> {
  const env = { ...process.env, RESTIC_PASSWORD }
  const args = [
    '--repo',
    repo,
    '--cache-dir',
    cache,
    'backup',
    '--json',
    '--exclude',
    join(dataDir, 'cache'),
    '--exclude',
    join(dataDir, 'offsite'),
    dataDir,
  ]
  const started = performance.now()
  const { stdout } = await run('restic', args, { env, maxBuffer: 64 << 20 })
  const s = seconds(started)
  const summary = stdout
    .split('\n')
    .filter((l) => l.includes('"summary"'))
    .map((l) => JSON.parse(l) as { data_added: number })[0]
  return { s, added: summary?.data_added ?? -1 }
}

export async function benchOffsite(): Promise<Record<string, number | string>> {
  const root = mkdtempSync(join(tmpdir(), 'hearth-bench-offsite-'))
  const dataDir = join(root, 'data')
  const env = {
    ...process.env,
    HEARTH_DATA_DIR: dataDir,
    HEARTH_LOG_LEVEL: 'silent',
    HEARTH_OFFSITE_REPOSITORY: join(root, 'hearth-repo'),
    HEARTH_OFFSITE_CRON: '',
  }
  try {
    await fill(dataDir, NOTES, 0)
    addPhotos(dataDir, PHOTOS, 0)
    const resticRepo = join(root, 'restic-repo')
    await run('restic', ['--repo', resticRepo, 'init'], { env: { ...process.env, RESTIC_PASSWORD } })
    const out: Record<string, number | string> = { 'offsite.data': `${NOTES} notes, ${(PHOTOS * PHOTO_BYTES) / 2 ** 20} MB photos` }
    const record = (name: string, r: { s: number; added: number }) => {
      out[`${name}.s`] = r.s
      out[`${name}.added_mb`] = Math.round(r.added / 2 ** 10 / 10.24) / 100
    }
    record('offsite.hearth.first', await hearthRun(env))
    record('offsite.restic_alone.first', await resticRun(resticRepo, join(root, 'restic-cache'), dataDir))
    // A day's change: 1 % more notes and one more photo.
    await fill(dataDir, Math.max(1, NOTES / 100), NOTES)
    addPhotos(dataDir, 1, PHOTOS)
    record('offsite.hearth.incremental', await hearthRun(env))
    record('offsite.restic_alone.incremental', await resticRun(resticRepo, join(root, 'restic-cache'), dataDir))
    return out
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}
