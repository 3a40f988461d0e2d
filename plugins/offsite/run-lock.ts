import { randomUUID } from 'node:crypto'
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const read = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
}

const create = (file: string, text: string): boolean => {
  try {
    writeFileSync(file, text, { flag: 'wx', mode: 0o600 })
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw err
  }
}

/** A breaker left by a process that died in the instant it held one is ignored after this long. */
const BREAKER_STALE_MS = 60_000

export interface RunLockOptions {
  /** Called after a dead owner's lock was read and before it is taken over (tests race a second taker here). */
  beforeTakeover?: () => void
}

/**
 * One staged copy at a time per data folder, across processes: the daemon's scheduled run and a
 * `hearth offsite run` beside it would otherwise stage into the same folder. The lock file holds
 * the owner's pid and a token of its own. A lock whose process is gone (killed mid-run) is taken
 * over, but only under a breaker file named after that lock's text: two takers that read the same
 * dead lock cannot both remove it, and the second, re-reading under the breaker, finds the first's
 * fresh lock and stops. Release removes the lock only while it is still this taker's.
 */
export function takeRunLock(file: string, opts: RunLockOptions = {}): () => void {
  const mine = `${process.pid} ${randomUUID()}\n`
  const release = () => {
    if (read(file) === mine) rmSync(file, { force: true })
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    if (create(file, mine)) return release
    const seen = read(file)
    if (seen === null) continue
    const pid = Number(seen.trim().split(' ')[0])
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) throw new Error(`another off-site run is under way (pid ${pid})`)
    opts.beforeTakeover?.()
    const breaker = `${file}.breaking-${Buffer.from(seen).toString('hex').slice(0, 120)}`
    if (!create(breaker, mine)) {
      const age = Date.now() - (statSync(breaker, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age < BREAKER_STALE_MS) throw new Error('another off-site run is taking over the lock at the same moment')
      rmSync(breaker, { force: true })
      continue
    }
    try {
      if (read(file) === seen) rmSync(file, { force: true })
      if (create(file, mine)) return release
    } finally {
      rmSync(breaker, { force: true })
    }
  }
  throw new Error('another off-site run took the lock at the same moment')
}
