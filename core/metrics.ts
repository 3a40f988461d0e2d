import { statSync } from 'node:fs'
import type Database from 'better-sqlite3'
import type { FastifyInstance, onResponseHookHandler } from 'fastify'
import type {} from '@fastify/swagger'
import { Counter, Gauge, Registry } from 'prom-client'
import type { Authenticate } from './auth/authenticate.js'
import { roleAllows } from './auth/guards.js'
import { HttpError } from './errors.js'
import { sentMethod } from './head-requests.js'
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

export function createMetrics(deps: { db: Database.Database; dbPath: string; hal: Hal }): Metrics & {
  registry: Registry
  install(app: FastifyInstance, authenticate: Authenticate): void
} {
  const registry = new Registry()
  const tally = createRequestTally(registry, {
    requests: 'hearth_http_requests_total',
    requestsHelp: 'HTTP requests answered, by route pattern, method and status',
    latency: 'hearth_http_request_duration_seconds',
    latencyHelp: 'Time to answer, by route pattern and method',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  })
  const metrics: Metrics = {
    register(kind, name, help, labelNames, collect) {
      const Kind = kind === 'counter' ? Counter : Gauge
      new Kind({
        name,
        help,
        labelNames,
        registers: [registry],
        collect(this: Counter | Gauge) {
          this.reset()
          for (const s of collect()) (this as Gauge).inc(s.labels ?? {}, s.value)
        },
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
    registry,
    install(app, authenticate) {
      // One series per route pattern, never the raw URL. Each route gets its own onResponse hook
      // knowing its pattern (no per-request lookup of the route's options, no key strings).
      app.addHook('onRoute', (route) => {
        const observe = tally.route(route.url)
        const hook: onResponseHookHandler = (request, reply, done) => {
          observe(sentMethod(request), reply.statusCode, reply.elapsedTime)
          done()
        }
        route.onResponse = withHook(route.onResponse, hook, 'last')
      })
      // Requests no route matched (404s) have no route hooks: this one counts them.
      const unmatched = tally.route('unmatched')
      app.addHook('onResponse', (request, reply, done) => {
        if (request.is404) unmatched(sentMethod(request), reply.statusCode, reply.elapsedTime)
        done()
      })
      app.get('/metrics', { config: { auth: false, envelope: 'none' }, schema: { hide: true } }, async (request, reply) => {
        if (!LOOPBACK.test(request.ip)) {
          const auth = await authenticate(request.headers)
          if (!roleAllows(auth, 'admin')) throw new HttpError('FORBIDDEN')
        }
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
