export interface Connectivity {
  online: boolean
  /** Round trip of the fastest target that answered; null when none did. */
  latency_ms: number | null
  checked_at: string
}

/**
 * Asks every target at once (HEAD, no redirects followed); any HTTP answer counts as reaching the
 * internet, whatever its status: a captive portal or a 404 still proves the route out.
 */
export async function measure(targets: string[], timeoutMs: number, now: () => number): Promise<Connectivity> {
  const times = await Promise.all(
    targets.map(async (url) => {
      const started = performance.now()
      try {
        const res = await fetch(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) })
        await res.body?.cancel()
        return performance.now() - started
      } catch {
        return null
      }
    }),
  )
  const answered = times.filter((t): t is number => t !== null)
  return {
    online: answered.length > 0,
    latency_ms: answered.length ? Math.round(Math.min(...answered)) : null,
    checked_at: new Date(now()).toISOString(),
  }
}
