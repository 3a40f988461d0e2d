import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Db } from './sqlite.js'

export interface MigrationFile {
  version: number
  name: string
  sql: string
}

const FILE = /^(\d+)-([a-z0-9-_]+)\.sql$/i

export function ensureMigrationTable(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    plugin TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    PRIMARY KEY (plugin, version)
  )`)
}

export function readMigrations(folder: string | URL): MigrationFile[] {
  const dir = folder instanceof URL ? fileURLToPath(folder) : folder
  if (!existsSync(dir)) throw new Error(`migrations folder ${dir} does not exist`)
  const files = readdirSync(dir)
    .map((f) => ({ f, m: FILE.exec(f) }))
    .filter((x): x is { f: string; m: RegExpExecArray } => x.m !== null)
    .map(({ f, m }) => ({ version: Number(m[1]), name: m[2] as string, sql: readFileSync(join(dir, f), 'utf8') }))
    .sort((a, b) => a.version - b.version)
  const seen = new Set<number>()
  for (const m of files) {
    if (seen.has(m.version)) throw new Error(`migration version ${m.version} appears twice in ${dir}`)
    seen.add(m.version)
  }
  return files
}

const checksum = (sql: string) => createHash('sha256').update(sql).digest('hex')

/**
 * Applies a plugin's pending migrations in order, all in one transaction:
 * either every pending file lands or none does. A shipped migration whose
 * text changed is refused rather than silently ignored.
 */
export function migrate(db: Db, plugin: string, files: MigrationFile[]): number[] {
  ensureMigrationTable(db)
  const applied = new Map(
    (
      db.prepare('SELECT version, checksum FROM schema_migrations WHERE plugin = ?').all(plugin) as Array<{
        version: number
        checksum: string
      }>
    ).map((r) => [r.version, r.checksum]),
  )
  for (const f of files) {
    const sum = applied.get(f.version)
    if (sum && sum !== checksum(f.sql)) {
      throw new Error(`migration ${plugin}/${f.version}-${f.name} changed after it was applied; add a new migration instead`)
    }
  }
  const pending = files.filter((f) => !applied.has(f.version))
  if (pending.length === 0) return []
  const record = db.prepare('INSERT INTO schema_migrations (plugin, version, name, checksum, applied_at) VALUES (?, ?, ?, ?, ?)')
  db.transaction(() => {
    for (const f of pending) {
      db.exec(f.sql)
      record.run(plugin, f.version, f.name, checksum(f.sql), new Date().toISOString())
    }
  })()
  return pending.map((f) => f.version)
}

export function schemaVersion(db: Db, plugin: string): number {
  ensureMigrationTable(db)
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations WHERE plugin = ?').get(plugin) as { v: number | null }
  return row.v ?? 0
}
