import { readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Names of scheduled backups: `hearth-<UTC time>.tar.gz`, `.enc` appended when encrypted. */
const SCHEDULED = /^hearth-(\d{8}T\d{6}Z)\.tar\.gz(\.enc)?$/

export interface ScheduledBackup {
  name: string
  path: string
  size_bytes: number
  created_at: string
  encrypted: boolean
}

export function scheduledName(at: Date, encrypted: boolean): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  return `hearth-${stamp}.tar.gz${encrypted ? '.enc' : ''}`
}

/** The scheduled backups in `dir`, newest first; other files there are left alone. */
export function listScheduled(dir: string): ScheduledBackup[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const out: ScheduledBackup[] = []
  for (const name of names) {
    const m = SCHEDULED.exec(name)
    if (!m) continue
    const stamp = m[1] as string
    const created = `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`
    out.push({ name, path: join(dir, name), size_bytes: statSync(join(dir, name)).size, created_at: created, encrypted: Boolean(m[2]) })
  }
  return out.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0))
}

/** Deletes scheduled backups beyond the newest `keep`; returns the names removed. */
export function applyRetention(dir: string, keep: number): string[] {
  const old = listScheduled(dir).slice(keep)
  for (const b of old) rmSync(b.path, { force: true })
  return old.map((b) => b.name)
}
