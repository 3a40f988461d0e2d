/** What one window's map and entry hold before any series is kept in it. */
const WINDOW_BYTES = 300

interface Kept {
  version: string
  starts: Float64Array
  bytes: number
}

/** The starts kept for one window, by record id. */
export interface WindowStarts {
  /** The starts of record `id` at `version`, or undefined. */
  get(id: string, version: string): Float64Array | undefined
  keep(id: string, version: string, starts: Float64Array): void
}

interface Window extends WindowStarts {
  span: string
  series: Map<string, Kept>
  bytes: number
}

/**
 * The occurrence starts of repeating records (a series' recurrence expanded in a window) recently
 * computed, as numbers: a ranged list over thousands of series asks for the same windows again
 * and again (a calendar view polled, paged), and expanding each rule in its zone's wall clock was
 * most of such a list's time. What a series' starts are depends on the record alone (its rule,
 * start and zone) and the window, so an entry is found by the window, then the record's id and
 * version. It is never a matter of who asks: whether the caller may read the series is decided
 * before, for each request (the list's scope and access check), and only then are its starts
 * looked up here.
 *
 * Exact as the record cache is (it drops this one's entries with its own, record-cache.ts): a write
 * of the record through the store drops them, a trigger's change to other rows or a commit by another
 * connection empties it all, and nothing is kept while a transaction is open (a batch could still
 * roll back the version it would be filed under). Bounded by an estimate of the bytes it holds;
 * the windows least recently asked for go first, whole (a list asks for one window; looked up
 * per series, the order of thousands of entries cost more than their expansion saved).
 */
export class StartsCache {
  /** Least recently used first. */
  private readonly windows = new Map<string, Window>()
  /** The windows holding each record's starts. */
  private readonly windowsOf = new Map<string, Set<Window>>()
  private bytes = 0

  constructor(
    private readonly limit: number,
    private readonly inTransaction: () => boolean,
  ) {}

  get heldBytes(): number {
    return this.bytes
  }

  /** The starts kept for the window `span` (its bounds, as the caller names them). */
  window(span: string): WindowStarts {
    let window = this.windows.get(span)
    if (window) this.windows.delete(span)
    else {
      const series = new Map<string, Kept>()
      const made: Window = {
        span,
        series,
        bytes: 0,
        get: (id, version) => {
          const kept = series.get(id)
          return kept?.version === version ? kept.starts : undefined
        },
        keep: (id, version, starts) => this.keep(made, id, version, starts),
      }
      window = made
    }
    this.windows.set(span, window)
    // A window's own map counts too (a list of a window with nothing to keep in it still adds one).
    if (window.bytes === 0 && !this.add(window, WINDOW_BYTES)) this.windows.delete(span)
    return window
  }

  private keep(window: Window, id: string, version: string, starts: Float64Array): void {
    // Not after the window went (a paused list's window, emptied meanwhile), nor inside a transaction.
    if (this.inTransaction() || this.windows.get(window.span) !== window) return
    this.removeSeries(window, id)
    // The array's bytes, ~100 for its object and buffer, ~150 for the entry, its slots and the id's set.
    if (!this.add(window, starts.byteLength + 250)) return
    window.series.set(id, { version, starts, bytes: starts.byteLength + 250 })
    const holding = this.windowsOf.get(id) ?? new Set<Window>()
    holding.add(window)
    this.windowsOf.set(id, holding)
  }

  /** Counts `bytes` more in `window`, when the budget has room once older windows are gone; false when not. */
  private add(window: Window, bytes: number): boolean {
    // The windows asked for longest ago make room; the window in use never does.
    for (const [span, other] of this.windows) {
      if (this.bytes + bytes <= this.limit || other === window) break
      this.removeWindow(span)
    }
    if (this.bytes + bytes > this.limit) return false
    window.bytes += bytes
    this.bytes += bytes
    return true
  }

  /** The record changed (or went): its starts in every window go. */
  drop(id: string): void {
    const holding = this.windowsOf.get(id)
    if (!holding) return
    for (const window of holding) this.removeSeries(window, id)
    this.windowsOf.delete(id)
  }

  clear(): void {
    for (const window of this.windows.values()) window.series.clear()
    this.windows.clear()
    this.windowsOf.clear()
    this.bytes = 0
  }

  private removeSeries(window: Window, id: string): void {
    const kept = window.series.get(id)
    if (!kept) return
    window.series.delete(id)
    window.bytes -= kept.bytes
    this.bytes -= kept.bytes
  }

  private removeWindow(span: string): void {
    const window = this.windows.get(span)
    if (!window) return
    this.windows.delete(span)
    this.bytes -= window.bytes
    for (const id of window.series.keys()) {
      const holding = this.windowsOf.get(id)
      holding?.delete(window)
      if (holding?.size === 0) this.windowsOf.delete(id)
    }
    window.series.clear()
  }
}
