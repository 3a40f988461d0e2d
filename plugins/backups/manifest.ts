import type Database from 'better-sqlite3'

/** manifest.json, the first entry of every archive. */
export interface BackupManifest {
  format: 'hearth-backup'
  format_version: 1
  /** The Hearth version that took the backup. */
  hearth_version: string
  created_at: string
  /** Highest applied migration per plugin (schema_migrations), 'core' included. */
  schema: Record<string, number>
  files: Record<string, { size: number; sha256: string }>
}

export const DB_ENTRY = 'hearth.db'
export const ENV_ENTRY = 'hearth.env'
export const MANIFEST_ENTRY = 'manifest.json'
/** The only names an archive may hold; anything else is refused on restore. */
export const ENTRIES = new Set([MANIFEST_ENTRY, DB_ENTRY, ENV_ENTRY])

/** Highest applied migration of each plugin in a database (empty before any migration). */
export function schemaVersions(db: Database.Database): Record<string, number> {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get()
  if (!table) return {}
  const rows = db.prepare('SELECT plugin, MAX(version) AS version FROM schema_migrations GROUP BY plugin ORDER BY plugin').all() as Array<{
    plugin: string
    version: number
  }>
  return Object.fromEntries(rows.map((r) => [r.plugin, r.version]))
}

/**
 * Plugins whose schema in the backup is newer than this code's migrations: restoring
 * them would run code against tables it does not know. Plugins this code does not
 * have at all (a third-party plugin not installed) are returned apart.
 */
export function compareSchemas(
  backup: Record<string, number>,
  known: Record<string, number>,
): { newer: Array<{ plugin: string; backup: number; known: number }>; unknown: string[] } {
  const newer: Array<{ plugin: string; backup: number; known: number }> = []
  const unknown: string[] = []
  for (const [plugin, version] of Object.entries(backup)) {
    const have = known[plugin]
    if (have === undefined) unknown.push(plugin)
    else if (version > have) newer.push({ plugin, backup: version, known: have })
  }
  return { newer, unknown }
}

export function parseManifest(text: string): BackupManifest {
  const m = JSON.parse(text) as BackupManifest
  if (m?.format !== 'hearth-backup') throw new Error('not a Hearth backup (manifest.json has no format "hearth-backup")')
  if (m.format_version !== 1) throw new Error(`backup format version ${m.format_version} is newer than this Hearth knows`)
  if (typeof m.files !== 'object' || !m.files || typeof m.schema !== 'object' || !m.schema) throw new Error('damaged manifest.json')
  return m
}
