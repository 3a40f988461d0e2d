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
 * A write the service describes as the creation or change of one record (its resource and
 * sequence number) need not throw a result away: a value cached with a `Maintain` function is
 * carried over to the new generation by it (a page whose query the new record does not satisfy is
 * the same page), so a client searching right after its own POST or edit is not sent back to the
 * query (at 1,000,000 notes an unranked search's page walks the sort index past every
 * newer note, 13 ms).
 */

/**
 * The one record one write of the user created or changed (in its own row only: nothing else
 * changed in that write). `created`: every write of it since the cached value was a creation,
 * so it was in no result then.
 */
export interface Written {
  resource: string
  seq: number
  created: boolean
}

/**
 * The value a cached result has after the user's records in `written` were written (each once,
 * whatever the order, as they are now; a write rolled back since is listed too), or undefined
 * when it cannot tell exactly: the result is then computed again.
 */
export type Maintain<V> = (value: V, written: Written[]) => V | undefined

/** The writes a user's cached values can be carried across: the last ones only. */
const LOG = 32

interface UserState {
  generation: number
  /** The writes that made the last generations, oldest first; null: a write of more than one known record. */
  log: Array<{ generation: number; written: Written | null }>
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
   * Call after every write of `userId`'s records; `written` when that write created or changed
   * exactly one record, in its own row only.
   */
  bump(userId: string, written?: Written): void {
    const user = this.users.get(userId) ?? { generation: 0, log: [] }
    user.generation++
    user.log.push({ generation: user.generation, written: written ?? null })
    if (user.log.length > LOG) user.log.shift()
    this.users.set(userId, user)
  }

  /**
   * The cached value for `key`, or `compute()` stored under it; a null key is never cached.
   * With `maintain`, a value cached before the user's last writes of single records is carried over by it.
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
      const written = maintain && !this.inTransaction() ? this.writtenSince(userId, hit.generation) : null
      const value = written && maintain ? maintain(hit.value as V, written) : undefined
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
   * The records the user wrote since `generation`, each once; null when some write since was not
   * one of a single record, or is older than the log.
   */
  private writtenSince(userId: string, generation: number): Written[] | null {
    const log = this.users.get(userId)?.log ?? []
    const since = log.filter((w) => w.generation > generation)
    // Every generation after `generation` must be in the log, or an unknown write fell out of it.
    if (since.length === 0 || since[0]?.generation !== generation + 1) return null
    const out = new Map<string, Written>()
    for (const { written } of since) {
      if (!written) return null
      const key = `${written.resource}\u0000${written.seq}`
      const seen = out.get(key)
      out.set(key, { ...written, created: written.created && (seen?.created ?? true) })
    }
    return [...out.values()]
  }
}
