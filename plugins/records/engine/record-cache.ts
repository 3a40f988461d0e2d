import type { ExternalWrites } from './external-writes.js'
import type { ApiRecord } from './types.js'

interface Entry {
  userId: string
  id: string
  seq: number
  record: ApiRecord
  bytes: number
}

/**
 * Records recently read, frozen, so a record read again (a phone re-syncing, a list page after the
 * first) costs no SQLite read and no decoding of its row. Exact: every write through the store drops the record's entry
 * (records.store calls `drop`), nothing is stored while a transaction is open (a group-commit
 * batch could still roll back what it would show), and commits by other connections empty the
 * cache within a millisecond (ExternalWrites). Bounded by an estimate of the memory it holds, one
 * budget for every resource's cache; the least recently used entries go first.
 *
 * A record is kept on its second read, not its first: a scan over more records than the cache
 * holds (an export, a client syncing everything) would otherwise replace every entry with one read
 * once, and the churn of old-generation objects costs more than the cache saves (by id over 20,000
 * notes in turn with 32 MiB: 33 µs of CPU a request without the cache, 45-49 µs with it, before
 * this rule). Recent first reads are remembered by id only, a bounded set.
 */
export class RecordCache {
  private readonly byId = new Map<string, Entry>()
  private readonly bySeq = new Map<number, Entry>()
  private bytes = 0
  /** Ids read once recently (admission: a second read keeps the record). */
  private readonly seenOnce = new Set<string>()
  /** Lookups answered and not (hearth_record_cache_requests_total). */
  readonly stats = { hits: 0, misses: 0 }
  /** Caches of values computed from records (starts-cache.ts): dropped with the records they come from. */
  private readonly dependents: Array<{ drop(id: string): void; clear(): void }> = []

  constructor(
    /** Shared by the resources' caches: a busy resource may use what the others leave. */
    private readonly budget: CacheBudget,
    private readonly inTransaction: () => boolean,
    private readonly external: ExternalWrites,
  ) {
    external.onChange(() => this.clear())
  }

  get enabled(): boolean {
    return this.budget.limit > 0
  }

  /** The bytes every resource's record cache may hold together. */
  get limit(): number {
    return this.budget.limit
  }

  /** Has `dependent` follow every change this cache hears of: a record written (drop), or many (clear). */
  attach(dependent: { drop(id: string): void; clear(): void }): void {
    this.dependents.push(dependent)
  }

  /**
   * The record kept under this id when it is `userId`'s; null: whoever owns it (the caller then
   * asks sharing/access.ts whether it may be read: nothing here knows who may).
   */
  byIdFor(userId: string | null, id: string): ApiRecord | undefined {
    this.external.check()
    const hit = this.byId.get(id)
    if (!hit || (userId !== null && hit.userId !== userId)) return this.counted(undefined)
    // Least recently used goes first: a hit moves the entry to the end of the map's order.
    this.byId.delete(id)
    this.byId.set(id, hit)
    return this.counted(hit.record)
  }

  bySeqFor(userId: string | null, seq: number): ApiRecord | undefined {
    const hit = this.bySeq.get(seq)
    return this.counted(hit && (userId === null || hit.userId === userId) ? hit.record : undefined)
  }

  get heldBytes(): number {
    return this.bytes
  }

  private counted(record: ApiRecord | undefined): ApiRecord | undefined {
    if (record) this.stats.hits++
    else this.stats.misses++
    return record
  }

  /** Call once before a series of bySeqFor lookups. */
  checkExternal(): void {
    this.external.check()
  }

  /** Keeps `record` (read from the table just now) and returns the frozen copy that is served. */
  keep(userId: string, seq: number, record: ApiRecord): ApiRecord {
    if (!this.enabled || this.inTransaction()) return record
    const id = record.id as string
    if (!this.seenOnce.delete(id)) {
      this.seenOnce.add(id)
      if (this.seenOnce.size > SEEN_ONCE_MAX) this.seenOnce.delete(this.seenOnce.values().next().value as string)
      return record
    }
    const frozen = deepFreeze(record)
    this.evict(id)
    const entry: Entry = { userId, id, seq, record: frozen, bytes: heapEstimate(record) }
    this.byId.set(entry.id, entry)
    this.bySeq.set(seq, entry)
    this.bytes += entry.bytes
    this.budget.used += entry.bytes
    while (this.budget.used > this.budget.limit) {
      const oldest = this.byId.values().next().value as Entry | undefined
      if (!oldest) break
      this.evict(oldest.id)
    }
    return frozen
  }

  /** The record `id` was written: its entry goes, and what was computed from it. */
  drop(id: string): void {
    this.evict(id)
    for (const d of this.dependents) d.drop(id)
  }

  /** Out of the cache, for room or to be replaced (the record itself has not changed). */
  private evict(id: string): void {
    const entry = this.byId.get(id)
    if (!entry) return
    this.byId.delete(id)
    this.bySeq.delete(entry.seq)
    this.bytes -= entry.bytes
    this.budget.used -= entry.bytes
  }

  clear(): void {
    for (const d of this.dependents) d.clear()
    this.byId.clear()
    this.bySeq.clear()
    this.budget.used -= this.bytes
    this.bytes = 0
  }
}

/** One memory budget for several caches: bytes allowed, bytes held. */
export interface CacheBudget {
  readonly limit: number
  used: number
}

/**
 * What a kept record adds to the heap: its characters and ~200 bytes for the object, the entry and
 * the two maps' slots. Measured: 6,000 notes of ~1 KiB of Markdown (1,160 characters of JSON each)
 * read from SQLite and kept grew the heap by 1.2 bytes per character of their JSON.
 */
function heapEstimate(record: ApiRecord): number {
  let bytes = 200
  for (const value of Object.values(record)) {
    if (typeof value === 'string') bytes += value.length
    else if (value !== null && typeof value === 'object') bytes += JSON.stringify(value).length
    else bytes += 8
  }
  return bytes
}

/** How many first reads are remembered: a record read again within this many others is kept. */
const SEEN_ONCE_MAX = 10_000

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}
