import type Database from 'better-sqlite3'
import type { BackupManifest } from '../backups/public.js'

/** manifest.json of an off-site snapshot: the local backup's manifest, and what a drill compares against. */
export interface OffsiteManifest extends BackupManifest {
  /** Rows of each table of the database copy. */
  rows: Record<string, number>
  /** The photos folder as it was sent (null when there was none). */
  photos: { files: number; bytes: number } | null
}

/**
 * Rows of every ordinary table (virtual tables left out: they may need a module this process has
 * not loaded; their shadow tables are ordinary and counted). Names come from sqlite_master and
 * are quoted as identifiers.
 */
export function rowCounts(db: Database.Database): Record<string, number> {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
    )
    .pluck()
    .all() as string[]
  const out: Record<string, number> = {}
  for (const name of tables)
    out[name] = db
      .prepare(`SELECT COUNT(*) FROM "${name.replace(/"/g, '""')}"`)
      .pluck()
      .get() as number
  return out
}

/** Tables whose row count differs from the manifest's (missing tables included). */
export function rowDifferences(want: Record<string, number>, got: Record<string, number>): string[] {
  const out: string[] = []
  for (const [table, n] of Object.entries(want))
    if (got[table] !== n) out.push(`${table}: ${got[table] ?? 'missing'} rows, the manifest says ${n}`)
  return out
}
