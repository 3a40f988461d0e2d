import { createRequire } from 'node:module'
import t from 'tap'
import { dig, dnsApi, freePort } from '../../plugins/dns/test/support.js'
import { addUser, auth, build, owner } from '../helper.js'

/** GET /metrics read by a Prometheus text-format parser, as a scraper reads it. */
const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[]
interface Family {
  name: string
  type: string
  metrics: Array<{ labels?: Record<string, string>; value?: string; count?: string; buckets?: Record<string, string> }>
}
const family = (all: Family[], name: string) => all.find((f) => f.name === name)

t.test('/metrics: requests by route pattern, latency, database size, drivers, DNS answers by rcode', async (t) => {
  const port = await freePort()
  const app = await build(t, { env: { HEARTH_DNS_PORT: String(port), HEARTH_DNS_HOST: '127.0.0.1' } })
  const o = await owner(app)
  const created = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth(o.token), payload: { content: 'hello' } })
  for (let i = 0; i < 3; i++) {
    await app.inject({ method: 'GET', url: `/api/v1/notes/${created.json().data.id}`, headers: auth(o.token) })
  }
  await app.inject({ method: 'GET', url: '/api/v1/notes/00000000-0000-4000-8000-000000000000', headers: auth(o.token) })
  await app.inject({ method: 'GET', url: '/api/v1/nowhere', headers: auth(o.token) })
  await dnsApi(app, o.token).zone('home.test')
  await dig(port, 'nothing.home.test', 'A')
  await dig(port, 'home.test', 'SOA')
  // The storage driver is detected once the server listens or on first use (inject does not listen).
  await app.inject({ method: 'GET', url: '/api/v1/hal/storage/status', headers: auth(o.token) })

  const res = await app.inject({ method: 'GET', url: '/metrics' })
  t.equal(res.statusCode, 200, 'loopback reads without a token')
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/)
  const all = parse(res.body)

  const requests = family(all, 'hearth_http_requests_total')
  t.equal(requests?.type, 'COUNTER')
  const byRoute = (route: string, status: string) =>
    requests?.metrics.find((m) => m.labels?.route === route && m.labels?.status === status && m.labels?.method === 'GET')?.value
  t.equal(byRoute('/api/v1/notes/:id', '200'), '3', 'one series per route pattern, not per id')
  t.equal(byRoute('/api/v1/notes/:id', '404'), '1')
  const latency = family(all, 'hearth_http_request_duration_seconds')
  t.equal(latency?.type, 'HISTOGRAM')
  t.ok(
    latency?.metrics.some((m) => m.buckets?.['+Inf']),
    'with buckets',
  )
  // The parser folds labelled histograms into bare buckets: the count line is read as written.
  t.match(res.body, 'hearth_http_request_duration_seconds_count{method="GET",route="/api/v1/notes/:id"} 4')
  // Buckets as Prometheus reads them: cumulative, in bucket order, +Inf equal to the count, a sum in seconds.
  const byId = res.body.split('\n').filter((l) => l.includes('route="/api/v1/notes/:id"') && l.startsWith('hearth_http_request_duration'))
  const buckets = byId.filter((l) => l.includes('_bucket')).map((l) => Number(l.split(' ')[1]))
  t.equal(buckets.length, 12, 'eleven bounds and +Inf')
  t.ok(
    buckets.every((v, i) => i === 0 || v >= (buckets[i - 1] as number)),
    'cumulative',
  )
  t.equal(buckets.at(-1), 4)
  t.match(byId[0], /_bucket\{le="0\.001",method="GET",route="\/api\/v1\/notes\/:id"\} \d+$/)
  const sum = Number(byId.find((l) => l.includes('_sum'))?.split(' ')[1])
  t.ok(sum > 0 && sum < 10, 'the sum is in seconds')
  t.match(res.body, 'hearth_http_requests_total{method="GET",route="unmatched",status="404"}', 'requests no route matched')

  const size = family(all, 'hearth_db_size_bytes')?.metrics.find((m) => m.labels?.file === 'hearth.db')
  t.ok(Number(size?.value) > 0, 'database size')
  t.ok(
    family(all, 'hearth_driver_active')?.metrics.some((m) => m.labels?.kind === 'storage' && m.value === '1'),
    'the active storage driver',
  )
  const answers = family(all, 'hearth_dns_answers_total')
  t.equal(answers?.metrics.find((m) => m.labels?.rcode === 'NXDOMAIN')?.value, '1')
  t.equal(answers?.metrics.find((m) => m.labels?.rcode === 'NOERROR')?.value, '1')
})

t.test('/metrics from the network: admins only', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const user = await addUser(app, o.token)
  const remote = { remoteAddress: '192.0.2.7' }
  t.equal((await app.inject({ method: 'GET', url: '/metrics', ...remote })).statusCode, 401)
  t.equal((await app.inject({ method: 'GET', url: '/metrics', headers: auth(user.token), ...remote })).statusCode, 403)
  t.equal((await app.inject({ method: 'GET', url: '/metrics', headers: auth(o.token), ...remote })).statusCode, 200)
})

t.test('/metrics: cache hits and misses of the plugins’ TTL caches, by owner', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  // The storage plugin caches the disk list: the first read misses, the next ones hit.
  for (let i = 0; i < 3; i++) {
    const disks = await app.inject({ method: 'GET', url: '/api/v1/hal/storage/disks', headers: auth(o.token) })
    t.equal(disks.statusCode, 200)
  }
  const caches = family(parse((await app.inject({ method: 'GET', url: '/metrics' })).body), 'hearth_cache_requests_total')
  t.equal(caches?.type, 'COUNTER')
  const count = (result: string) => Number(caches?.metrics.find((m) => m.labels?.owner === 'storage' && m.labels?.result === result)?.value)
  t.ok(count('miss') >= 1, 'the cold read is a miss')
  t.ok(count('hit') >= 2, 'the repeated reads are hits')
})
