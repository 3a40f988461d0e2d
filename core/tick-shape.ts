import { executionAsyncResource } from 'node:async_hooks'

/**
 * Keeps one of Node's tick objects alive for the daemon's life (~7% of a by-id request's CPU).
 *
 * `process.nextTick` queues each callback as an object literal with two computed symbol keys,
 * `{ [async_id_symbol], [trigger_async_id_symbol], callback, args }`. V8 gives that shape a chain of
 * hidden classes (maps) that only live tick objects reach, and a full GC drops the transitions to maps
 * nothing reaches. Tick objects live for microseconds, so after each major GC of the daemon nextTick
 * builds its objects on a new chain of maps; after four of them the literal's property stores have seen
 * too many maps and V8 sends them to the runtime for good (megamorphic). Node's streams take several
 * nextTicks per request: 1.8 µs of CPU per by-id request went there (perf, docs/performance.md). One
 * tick object kept alive keeps its maps, so every later tick object finds the same ones and the stores
 * stay monomorphic (test/core/tick-shape.test.ts reads V8's feedback to prove it).
 *
 * Inside a tick callback, the execution's async resource is the tick object itself (Node sets it before
 * calling the callback); nothing else about it is used.
 */
let kept: object | undefined

/** Called once, early in the daemon's start (before its first major GCs). */
export function keepTickShape(): void {
  if (kept) return
  process.nextTick(() => {
    kept ??= executionAsyncResource()
  })
}
