import { statSync } from 'node:fs'
import type Database from 'better-sqlite3'
import type { FastifyInstance, onResponseHookHandler } from 'fastify'
import type {} from '@fastify/swagger'
import type { Counter, Gauge, Registry } from 'prom-client'
import type { Authenticate } from './auth/authenticate.js'
import { roleAllows, scopeAllows } from './auth/access.js'
import { insufficientScope } from './auth/guards.js'
import { HttpError } from './errors.js'
import type { Hal } from './hal/registry.js'
import { createRequestTally } from './request-tally.js'
import { withHook } from './route-hooks.js'

/**
 * Prometheus metrics at GET /metrics (text format 0.0.4): request counts and
 * latency per route, the database size, drivers, and what plugins contribute
 * (DNS answers by rcode...). One registry per daemon. Readable from loopback
 * without a token (the OS's own scraper), otherwise by an admin.
 */
export type Sample = { labels?: Record<string, string>; value: number }

export interface Metrics {
  /** A counter or gauge whose values are read when scraped; name it `hearth_<plugin>_...`. */
  register(kind: 'counter' | 'gauge', name: string, help: string, labelNames: string[], collect: () => Sample[]): void
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/

type PromClient = typeof import('prom-client')
/** One metric put into the registry once prom-client is loaded. */
type Step = (prom: PromClient, registry: Registry) => void

export function createMetrics(deps: { db: Database.Database; dbPath: string; hal: Hal }): Metrics & {
  install(app: FastifyInstance, authenticate: Authenticate): void
} {
  // prom-client (its source, its registry and metric objects) is loaded on the first scrape, not at start: until
  // then a metric is its name, checked as prom-client checks it, and the step that registers it (idle
  // memory). The steps run in the order they were given: the registry writes its metrics in that order.
  const names = new Set<string>()
  const pending: Step[] = []
  let loaded: { prom: PromClient; registry: Registry } | undefined
  const add = (name: string, help: string, labelNames: string[], step: Step) => {
    checkMetric(name, help, labelNames, names)
    names.add(name)
    if (loaded) step(loaded.prom, loaded.registry)
    else pending.push(step)
  }
  let registry: Promise<Registry> | undefined
  const scraped = () =>
    // `.default`: prom-client is CommonJS, its module object is the default export (in the bundle's chunk, only that).
    (registry ??= import('prom-client').then(
      ({ default: prom }) => {
        loaded = { prom, registry: new prom.Registry() }
        for (const step of pending.splice(0)) step(prom, loaded.registry)
        return loaded.registry
      },
      (err: unknown) => {
        // Not kept: the next scrape tries again (a package upgrade may have replaced the files under it).
        registry = undefined
        throw err
      },
    ))

  const tally = createRequestTally({
    requests: 'hearth_http_requests_total',
    requestsHelp: 'HTTP requests answered, by route pattern, method and status',
    latency: 'hearth_http_request_duration_seconds',
    latencyHelp: 'Time to answer, by route pattern and method',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  })
  for (const metric of tally.metrics) add(metric.name, metric.help, [], (_prom, r) => r.registerMetric(metric as never))
  const metrics: Metrics = {
    register(kind, name, help, labelNames, collect) {
      add(name, help, labelNames, ({ Counter, Gauge }, r) => {
        const Kind = kind === 'counter' ? Counter : Gauge
        new Kind({
          name,
          help,
          labelNames,
          registers: [r],
          collect(this: Counter | Gauge) {
            this.reset()
            for (const s of collect()) (this as Gauge).inc(s.labels ?? {}, s.value)
          },
        })
      })
    },
  }
  metrics.register('gauge', 'hearth_db_size_bytes', 'Size of the SQLite database and its WAL', ['file'], () =>
    ['', '-wal'].map((suffix) => ({ labels: { file: `hearth.db${suffix}` }, value: fileSize(`${deps.dbPath}${suffix}`) })),
  )
  metrics.register('gauge', 'hearth_driver_active', 'Drivers by kind: 1 for the active one', ['kind', 'driver'], () =>
    deps.hal.kinds().flatMap((kind) => deps.hal.drivers(kind).map((d) => ({ labels: { kind, driver: d.name }, value: d.active ? 1 : 0 }))),
  )

  return {
    ...metrics,
    install(app, authenticate) {
      // One series per route pattern, never the raw URL. Each route gets its own onResponse hook
      // knowing its pattern (no per-request lookup of the route's options, no key strings).
      app.addHook('onRoute', (route) => {
        const observe = tally.route(route.url)
        const hook: onResponseHookHandler = (request, reply, done) => {
          observe(request.method, reply.statusCode, reply.elapsedTime)
          done()
        }
        route.onResponse = withHook(route.onResponse, hook, 'last')
      })
      // Requests no route matched (404s) have no route hooks: this one counts them.
      const unmatched = tally.route('unmatched')
      app.addHook('onResponse', (request, reply, done) => {
        if (request.is404) unmatched(request.method, reply.statusCode, reply.elapsedTime)
        done()
      })
      app.get('/metrics', { config: { auth: false, envelope: 'none' }, schema: { hide: true } }, async (request, reply) => {
        if (!LOOPBACK.test(request.ip)) {
          const auth = await authenticate(request.headers)
          // The same gate as an admin route: a system key acting for an admin, or an admin's session.
          if (!scopeAllows(auth, 'admin', 'GET')) throw insufficientScope(auth)
          if (!roleAllows(auth, 'admin')) throw new HttpError('FORBIDDEN')
        }
        const registry = await scraped()
        return reply.type(registry.contentType).send(await registry.metrics())
      })
    },
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

/** What prom-client's metric constructor and registry refuse, refused when the metric is given, with their messages. */
function checkMetric(name: string, help: string, labelNames: string[], taken: ReadonlySet<string>): void {
  if (!help) throw new Error('Missing mandatory help parameter')
  if (!name) throw new Error('Missing mandatory name parameter')
  if (!METRIC_NAME.test(name)) throw new Error('Invalid metric name')
  if (!labelNames.every((label) => LABEL_NAME.test(label))) throw new Error('Invalid label name')
  if (taken.has(name)) throw new Error(`A metric with the name ${name} has already been registered.`)
}
