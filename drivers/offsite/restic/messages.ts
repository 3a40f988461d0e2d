import type { OffsiteBackupSummary, OffsiteProgress, OffsiteSnapshot } from '../driver.js'

/**
 * restic's `--json` output, read one line at a time: a status line becomes progress, the summary
 * line the result. Lines that are not JSON (a warning restic prints on stdout) are skipped.
 */
export function parseLine(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null
  try {
    const v = JSON.parse(line) as unknown
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)

export function toProgress(m: Record<string, unknown>, operation: OffsiteProgress['operation']): OffsiteProgress | null {
  if (m.message_type !== 'status') return null
  return {
    operation,
    fraction: Math.min(1, Math.max(0, num(m.percent_done))),
    bytes_done: num(m.bytes_done),
    bytes_total: num(m.total_bytes),
    files_done: num(m.files_done),
    files_total: num(m.total_files),
  }
}

export function toSummary(m: Record<string, unknown>): OffsiteBackupSummary | null {
  if (m.message_type !== 'summary' || typeof m.snapshot_id !== 'string') return null
  return {
    snapshot_id: m.snapshot_id,
    files_new: num(m.files_new),
    files_changed: num(m.files_changed),
    bytes_added: num(m.data_added),
    bytes_processed: num(m.total_bytes_processed),
  }
}

/** `restic snapshots --json`: one array on one line. */
export function toSnapshots(text: string): OffsiteSnapshot[] {
  let list: unknown
  try {
    list = JSON.parse(text)
  } catch {
    return []
  }
  if (!Array.isArray(list)) return []
  return list
    .filter((s): s is Record<string, unknown> => Boolean(s) && typeof s === 'object' && typeof (s as { id?: unknown }).id === 'string')
    .map((s) => ({
      id: s.id as string,
      short_id: typeof s.short_id === 'string' ? s.short_id : (s.id as string).slice(0, 8),
      time: typeof s.time === 'string' ? new Date(s.time).toISOString() : '',
      tags: Array.isArray(s.tags) ? s.tags.filter((t): t is string => typeof t === 'string') : [],
    }))
    .sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0))
}

/** `restic forget --json`: groups, each with the snapshots it removes. */
export function countRemoved(text: string): number {
  try {
    const groups = JSON.parse(text) as Array<{ remove?: unknown[] | null }>
    return Array.isArray(groups) ? groups.reduce((n, g) => n + (Array.isArray(g?.remove) ? g.remove.length : 0), 0) : 0
  } catch {
    return 0
  }
}
