import type Database from 'better-sqlite3'

/**
 * Commits made by another connection to the database (the CLI while the daemon is stopped
 * and then started, a bench seeder): SQLite's `data_version` changes with each. Reading it
 * takes the WAL read lock (~3 µs, as much as reading a record), so it is read at most once a
 * millisecond; the caches that listen are emptied when it moved. Writes through this
 * connection never move it: the record store invalidates those itself, exactly.
 */
export class ExternalWrites {
  private readonly dataVersion: Database.Statement
  private seen: number
  private lookedAt = 0
  private readonly listeners: Array<() => void> = []

  constructor(db: Database.Database) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck()
    this.seen = this.dataVersion.get() as number
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  /** Call before serving from a cache. */
  check(): void {
    const now = performance.now()
    if (now - this.lookedAt < 1) return
    this.lookedAt = now
    const version = this.dataVersion.get() as number
    if (version === this.seen) return
    this.seen = version
    for (const listener of this.listeners) listener()
  }
}
