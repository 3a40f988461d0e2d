/**
 * Fixed-window counters in memory. Small on purpose: login throttling must
 * count failures only, which general-purpose limiters do not do.
 */
export interface Limiter {
  /** Counts one hit; `allowed` false once the window's budget is spent. */
  hit(key: string): { allowed: boolean; retryAfterS: number }
  /** True while the key's budget is spent, without counting. */
  blocked(key: string): { blocked: boolean; retryAfterS: number }
  reset(key: string): void
  /** Takes back one hit of the current window (an attempt counted when it began that turned out not to fail). */
  undo(key: string): void
}

export function createLimiter(opts: { max: number; windowMs: number; now?: () => number }): Limiter {
  const now = opts.now ?? Date.now
  const windows = new Map<string, { count: number; resetAt: number }>()

  const current = (key: string, t: number) => {
    const w = windows.get(key)
    if (w && w.resetAt > t) return w
    if (windows.size > 50_000) for (const [k, v] of windows) if (v.resetAt <= t) windows.delete(k)
    return undefined
  }
  const retry = (resetAt: number, t: number) => Math.max(1, Math.ceil((resetAt - t) / 1000))

  return {
    hit(key) {
      const t = now()
      let w = current(key, t)
      if (!w) {
        w = { count: 0, resetAt: t + opts.windowMs }
        windows.set(key, w)
      }
      w.count++
      return { allowed: w.count <= opts.max, retryAfterS: retry(w.resetAt, t) }
    },
    blocked(key) {
      const t = now()
      const w = current(key, t)
      return w && w.count >= opts.max ? { blocked: true, retryAfterS: retry(w.resetAt, t) } : { blocked: false, retryAfterS: 0 }
    },
    reset(key) {
      windows.delete(key)
    },
    undo(key) {
      const w = current(key, now())
      if (w && w.count > 0) w.count--
    },
  }
}
