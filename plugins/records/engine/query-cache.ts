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
 *
 * A write the service describes as the creation of one record (its resource and sequence number)
 * need not throw a result away: a value cached with a `Maintain` function is carried over to the
 * new generation by it (a page whose query the new record does not satisfy is the same page), so
 * a client searching right after its own POST is not sent back to the query (issue 11: at 1,000,000
 * notes an unranked search's page walks the sort index past every newer note, 8-12 ms).
 */

/** A record created by one write of the user: nothing else changed in that write. */
export interface Created {
  resource: string
  seq: number
}

/**
 * The value a cached result has after the user's records in `created` were created (each once,
 * whatever the order; a creation rolled back since is listed too, its row simply absent), or
 * undefined when it cannot tell exactly: the result is then computed again.
 */
export type Maintain<V> = (value: V, created: Created[]) => V | undefined

/** The writes a user's cached values can be carried across: the last ones only. */
const LOG = 32

interface UserState {
  generation: number
  /** The writes that made the last generations, oldest first; null: a write other than one creation. */
  log: Array<{ generation: number; created: Created | null }>
}

export class QueryCache {
  private readonly entries = new Map<string, { value: unknown; generation: number; expires: number }>()
  private readonly users = new Map<string, UserState>()

  constructor(
    private readonly external: ExternalWrites,
    private readonly now: () => number,
    private readonly inTransaction: () => boolean = () => false,
    private readonly opts = { maxEntries: 2000, ttlMs: 60_000 },
  ) {
    external.onChange(() => this.entries.clear())
  }

  /**
   * Call after every write of `userId`'s records; `created` when that write created exactly one
   * record and changed nothing else.
   */
  bump(userId: string, created?: Created): void {
    const user = this.users.get(userId) ?? { generation: 0, log: [] }
    user.generation++
    user.log.push({ generation: user.generation, created: created ?? null })
    if (user.log.length > LOG) user.log.shift()
    this.users.set(userId, user)
  }

  /**
   * The cached value for `key`, or `compute()` stored under it; a null key is never cached.
   * With `maintain`, a value cached before the user's last creations is carried over by it.
   */
  through<V>(userId: string, key: string | null, compute: () => V, maintain?: Maintain<V>): V {
    if (key === null) return compute()
    this.external.check()
    const fullKey = `${userId}\u0000${key}`
    const generation = this.users.get(userId)?.generation ?? 0
    const hit = this.entries.get(fullKey)
    if (hit && hit.expires > this.now()) {
      if (hit.generation === generation) return hit.value as V
      // Not inside a transaction: what it shows could still roll back (as for storing, below).
      const created = maintain && !this.inTransaction() ? this.createdSince(userId, hit.generation) : null
      const value = created && maintain ? maintain(hit.value as V, created) : undefined
      if (value !== undefined) {
        hit.value = value
        hit.generation = generation
        return value
      }
    }
    const value = compute()
    if (this.inTransaction()) return value
    this.entries.delete(fullKey)
    if (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value as string)
    this.entries.set(fullKey, { value, generation, expires: this.now() + this.opts.ttlMs })
    return value
  }

  /**
   * The records the user created since `generation`, each once; null when some write since was
   * not one creation, or is older than the log.
   */
  private createdSince(userId: string, generation: number): Created[] | null {
    const log = this.users.get(userId)?.log ?? []
    const since = log.filter((w) => w.generation > generation)
    // Every generation after `generation` must be in the log, or an unknown write fell out of it.
    if (since.length === 0 || since[0]?.generation !== generation + 1) return null
    const out = new Map<string, Created>()
    for (const w of since) {
      if (!w.created) return null
      out.set(`${w.created.resource}\u0000${w.created.seq}`, w.created)
    }
    return [...out.values()]
  }
}
