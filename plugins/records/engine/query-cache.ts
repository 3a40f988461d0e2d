import type { ExternalWrites } from './external-writes.js'

/**
 * Recent results of list queries per user: totals and the ordered sequence
 * numbers of a page (the records themselves come by sequence number from
 * the store, and its RecordCache). Repeated listings (a UI polling, an agent paging back and
 * forth) then skip counting and ranking over a large table. Never stale:
 * every write through the service bumps the user's generation, and a commit
 * by another connection (the CLI, a bench seeder) empties the whole cache
 * (ExternalWrites), and nothing is kept while a transaction is open (a
 * group-commit batch could still roll back what it would show).
 */
export class QueryCache {
  private readonly entries = new Map<string, { value: unknown; generation: number; expires: number }>()
  private readonly generations = new Map<string, number>()

  constructor(
    private readonly external: ExternalWrites,
    private readonly now: () => number,
    private readonly inTransaction: () => boolean = () => false,
    private readonly opts = { maxEntries: 2000, ttlMs: 60_000 },
  ) {
    external.onChange(() => this.entries.clear())
  }

  /** Call after every write of `userId`'s records. */
  bump(userId: string): void {
    this.generations.set(userId, (this.generations.get(userId) ?? 0) + 1)
  }

  /** The cached value for `key`, or `compute()` stored under it; a null key is never cached. */
  through<V>(userId: string, key: string | null, compute: () => V): V {
    if (key === null) return compute()
    this.external.check()
    const fullKey = `${userId}\u0000${key}`
    const generation = this.generations.get(userId) ?? 0
    const hit = this.entries.get(fullKey)
    if (hit && hit.generation === generation && hit.expires > this.now()) return hit.value as V
    const value = compute()
    if (this.inTransaction()) return value
    this.entries.delete(fullKey)
    if (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value as string)
    this.entries.set(fullKey, { value, generation, expires: this.now() + this.opts.ttlMs })
    return value
  }
}
