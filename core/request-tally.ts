/**
 * The per-request metrics (requests by route, method and status; latency by route and method),
 * written by every answer. prom-client's labelled `inc()`/`observe()` validate and hash their labels
 * on each call (~0.5 µs a request on by-id reads); here each series is a tally of plain numbers
 * resolved once, and the registry reads the tallies when scraped, in prom-client's own text format.
 * Plain objects: prom-client itself is loaded on the first scrape (core/metrics.ts).
 */
export interface RequestTally {
  /** The recorder of one route pattern: count and latency by method and status. */
  route(pattern: string): (method: string, status: number, ms: number) => void
  /** The two metrics, in prom-client's Metric shape, for `registry.registerMetric`. */
  metrics: TallyMetric[]
}

/** What prom-client's registry reads of a metric (its own Counter and Histogram answer the same). */
export interface TallyMetric {
  name: string
  help: string
  type: 'counter' | 'histogram'
  aggregator: 'sum'
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: unknown[] }>
  reset(): void
}

interface Tally {
  labels: { method: string; route: string; status: string }
  n: number
}

interface Latency {
  labels: { method: string; route: string }
  /** Observations per bucket (not cumulative), as prom-client keeps them. */
  counts: Float64Array
  sum: number
  count: number
}

export function createRequestTally(names: {
  requests: string
  requestsHelp: string
  latency: string
  latencyHelp: string
  buckets: number[]
}): RequestTally {
  const counted: Tally[] = []
  const timed: Latency[] = []
  const { buckets } = names

  const requests = metric(names.requests, names.requestsHelp, 'counter', {
    values: () => counted.map((c) => ({ labels: c.labels, value: c.n })),
    reset: () => {
      for (const c of counted) c.n = 0
    },
  })
  const latency = metric(names.latency, names.latencyHelp, 'histogram', {
    values: () =>
      timed.flatMap((t) => {
        let acc = 0
        const lines = buckets.map((le, i) => {
          acc += t.counts[i] ?? 0
          return { labels: { le, ...t.labels }, value: acc, metricName: `${names.latency}_bucket` }
        })
        return [
          ...lines,
          { labels: { le: '+Inf', ...t.labels }, value: t.count, metricName: `${names.latency}_bucket` },
          { labels: t.labels, value: t.sum, metricName: `${names.latency}_sum` },
          { labels: t.labels, value: t.count, metricName: `${names.latency}_count` },
        ]
      }),
    reset: () => {
      for (const t of timed) {
        t.counts.fill(0)
        t.sum = 0
        t.count = 0
      }
    },
  })

  return {
    metrics: [requests, latency],
    route(pattern) {
      const counts = new Map<string, Tally>()
      const times = new Map<string, Latency>()
      return (method, status, ms) => {
        const key = status === 200 ? method : `${method} ${status}`
        let count = counts.get(key)
        if (!count) {
          count = { labels: { method, route: pattern, status: String(status) }, n: 0 }
          counted.push(count)
          counts.set(key, count)
        }
        count.n++
        let time = times.get(method)
        if (!time) {
          time = { labels: { method, route: pattern }, counts: new Float64Array(buckets.length), sum: 0, count: 0 }
          timed.push(time)
          times.set(method, time)
        }
        const seconds = ms / 1000
        time.sum += seconds
        time.count++
        // The first bucket the value fits in (prom-client's rule: value <= le); above them all only +Inf counts it.
        for (let i = 0; i < buckets.length; i++) {
          if (seconds <= (buckets[i] as number)) {
            time.counts[i] = (time.counts[i] ?? 0) + 1
            break
          }
        }
      }
    },
  }
}

/**
 * A metric whose values are read from tallies when scraped: the registry formats what `get()` answers
 * (prom-client's Metric shape, as its own Counter and Histogram answer). A reset zeroes the tallies and
 * keeps the series.
 */
function metric(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  tallies: { values: () => Array<{ labels: object; value: number; metricName?: string }>; reset: () => void },
): TallyMetric {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: tallies.values() }),
    reset: tallies.reset,
  }
}
