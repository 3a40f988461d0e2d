import { existsSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/**
 * What the running daemon tells the CLI: `<data>/hearth.pid` (JSON) is written once the
 * daemon listens and removed when it stops. The CLI reads it to decide whether to talk to
 * the API (daemon up) or to the database (daemon down), and restore refuses while it is live.
 */
export interface DaemonLock {
  pid: number
  port: number
  host: string
  version: string
  started_at: string
}

export const lockPath = (dataDir: string) => join(dataDir, 'hearth.pid')

export function writeDaemonLock(dataDir: string, lock: DaemonLock): void {
  writeFileSync(lockPath(dataDir), `${JSON.stringify(lock)}\n`, { mode: 0o644 })
}

/** Removes the lock if it is this process's (a second daemon that failed to start must not remove the first's). */
export function removeDaemonLock(dataDir: string, pid = process.pid): void {
  const lock = readDaemonLock(dataDir)
  if (lock && lock.pid === pid) unlinkSync(lockPath(dataDir))
}

export function readDaemonLock(dataDir: string): DaemonLock | null {
  try {
    const parsed = JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as DaemonLock
    return Number.isInteger(parsed.pid) && Number.isInteger(parsed.port) ? parsed : null
  } catch {
    return null
  }
}

/** Whether a process with this id exists (EPERM: it exists but belongs to another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The live daemon's lock, or null when none is recorded or its process is gone (a stale lock). */
export function liveDaemon(dataDir: string): DaemonLock | null {
  const lock = readDaemonLock(dataDir)
  return lock && processAlive(lock.pid) ? lock : null
}

/** Restore renames the previous data folder to `<data>.before-restore-<stamp>` and leaves this marker in the new one. */
export const RESTORE_MARKER = 'restored-from.json'
export const ASIDE_INFIX = '.before-restore-'

/**
 * Called once the daemon has started on a restored data folder: the previous folders kept aside
 * by `hearth restore` are no longer needed to roll back, so all but the newest `keep` go.
 * Returns the folders removed.
 */
export function pruneRestoredAside(dataDir: string, keep: number): string[] {
  const marker = join(dataDir, RESTORE_MARKER)
  if (!existsSync(marker)) return []
  const parent = dirname(dataDir)
  const prefix = `${basename(dataDir)}${ASIDE_INFIX}`
  const asides = readdirSync(parent)
    .filter((name) => name.startsWith(prefix))
    .sort()
    .reverse()
  const removed = asides.slice(keep).map((name) => join(parent, name))
  for (const dir of removed) rmSync(dir, { recursive: true, force: true })
  unlinkSync(marker)
  return removed
}
