import type Database from 'better-sqlite3'

/**
 * Recent results of list queries per user: totals and the ordered sequence
 * numbers of a page, never record bodies (rows are always read fresh, by
 * primary key). Repeated listings (a UI polling, an agent paging back and
 * forth) then skip counting and ranking over a large table. Never stale:
 * every write through the service bumps the user's generation, and SQLite's
 * `data_version` changes when another connection (the CLI, a bench seeder)
 * commits, which empties the whole cache.
 */
export class QueryCache {
  private readonly entries = new Map<string, { value: unknown; generation: number; expires: number }>()
  private readonly generations = new Map<string, number>()
  private readonly dataVersion: Database.Statement
  private seenVersion: number

  constructor(
    db: Database.Database,
    private readonly now: () => number,
    private readonly opts = { maxEntries: 2000, ttlMs: 60_000 },
  ) {
    this.dataVersion = db.prepare('PRAGMA data_version').pluck()
    this.seenVersion = this.dataVersion.get() as number
  }

  /** Call after every write of `userId`'s records. */
  bump(userId: string): void {
    this.generations.set(userId, (this.generations.get(userId) ?? 0) + 1)
  }

  /** The cached value for `key`, or `compute()` stored under it; a null key is never cached. */
  through<V>(userId: string, key: string | null, compute: () => V): V {
    if (key === null) return compute()
    const version = this.dataVersion.get() as number
    if (version !== this.seenVersion) {
      this.entries.clear()
      this.seenVersion = version
    }
    const fullKey = `${userId}\u0000${key}`
    const generation = this.generations.get(userId) ?? 0
    const hit = this.entries.get(fullKey)
    if (hit && hit.generation === generation && hit.expires > this.now()) return hit.value as V
    const value = compute()
    this.entries.delete(fullKey)
    if (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value as string)
    this.entries.set(fullKey, { value, generation, expires: this.now() + this.opts.ttlMs })
    return value
  }
}
