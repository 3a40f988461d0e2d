import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'

export type Db = Database.Database

export function databasePath(dataDir: string): string {
  return join(dataDir, 'hearth.db')
}

/**
 * Opens the one SQLite file: WAL so readers never wait for the writer,
 * synchronous=NORMAL (durable at checkpoints, safe against corruption in WAL),
 * foreign keys on, and a busy timeout for the CLI writing beside the daemon.
 */
export function openDatabase(file: string): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  db.pragma('temp_store = MEMORY')
  db.pragma('cache_size = -32000')
  return db
}

/** Online backup (SQLite backup API) to `destination`; consistent while the daemon writes. */
export async function backupDatabase(db: Db, destination: string): Promise<{ pages: number }> {
  mkdirSync(dirname(destination), { recursive: true })
  const result = await db.backup(destination)
  return { pages: result.totalPages }
}

/** Checkpoints the WAL into the main file and closes; used on shutdown. */
export function closeDatabase(db: Db): void {
  if (!db.open) return
  try {
    db.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}
