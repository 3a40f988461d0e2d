/**
 * A TTL cache whose concurrent callers of a cold key share one computation.
 * The clock is injectable so tests move time instead of sleeping.
 */
export interface TtlCache<V> {
  get(key: string): V | undefined
  /** Returns the cached value, or computes it once for all concurrent callers. */
  getOrCompute(key: string, compute: () => Promise<V>, ttlMs?: number): Promise<V>
  set(key: string, value: V, ttlMs?: number): void
  delete(key: string): void
  clear(): void
  readonly size: number
  /** Lookups answered from the cache, and those that were not (read by GET /metrics). */
  readonly stats: { hits: number; misses: number }
}

export interface CacheOptions {
  ttlMs: number
  now?: () => number
  /** Bound on stored entries; the oldest is evicted first. */
  maxEntries?: number
}

export function createCache<V>(opts: CacheOptions): TtlCache<V> {
  const now = opts.now ?? Date.now
  const max = opts.maxEntries ?? 10_000
  const entries = new Map<string, { value: V; expires: number }>()
  const inFlight = new Map<string, Promise<V>>()
  // Bumped by clear(): a computation started before a clear must not repopulate the cache.
  let generation = 0
  const stats = { hits: 0, misses: 0 }

  const cache: TtlCache<V> = {
    get(key) {
      const hit = entries.get(key)
      if (hit && hit.expires > now()) {
        stats.hits++
        return hit.value
      }
      if (hit) entries.delete(key)
      stats.misses++
      return undefined
    },
    set(key, value, ttlMs = opts.ttlMs) {
      entries.delete(key)
      if (entries.size >= max) entries.delete(entries.keys().next().value as string)
      entries.set(key, { value, expires: now() + ttlMs })
    },
    async getOrCompute(key, compute, ttlMs) {
      const hit = cache.get(key)
      if (hit !== undefined) return hit
      const running = inFlight.get(key)
      if (running) return running
      const startedIn = generation
      const promise = compute()
        .then((value) => {
          if (startedIn === generation) cache.set(key, value, ttlMs)
          return value
        })
        .finally(() => {
          if (inFlight.get(key) === promise) inFlight.delete(key)
        })
      inFlight.set(key, promise)
      return promise
    },
    delete(key) {
      entries.delete(key)
    },
    clear() {
      generation++
      entries.clear()
      inFlight.clear()
    },
    get size() {
      return entries.size
    },
    stats,
  }
  return cache
}
