import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { addUser, apiKey, auth, build, owner, recordEvents } from '../../../test/helper.js'
import { freePort } from '../../dns/test/support.js'
import { runCaddy, viaCaddy } from './caddy-user.js'
import { until } from './tls-support.js'

/**
 * Proxy routes through the HTTP API against a real Caddy (Debian's caddy, run as user caddy the way
 * caddy.service runs it, on free loopback ports with its own home; Hearth's data folder is out of its
 * reach): CRUD and validation, requests reaching the target,
 * disable/enable/delete taking effect, and a killed and restarted Caddy getting its routes back
 * without a Hearth restart.
 */

/** A local app for routes to reach, a Caddy run as caddy, and Hearth pointed at it. */
async function withCaddy(t: Parameters<typeof runCaddy>[0] & Parameters<typeof build>[0], reconcileMs: number) {
  const upstream = createServer((req, res) => res.end(`hello from the app (${req.headers.host})`))
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  t.teardown(() => upstream.close())
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  const [adminPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()]
  const caddy = await runCaddy(t, adminPort)
  const app = await build(t, {
    env: {
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
      HEARTH_PROXY_RECONCILE_MS: String(reconcileMs),
    },
  })
  return { target, httpPort, caddy, app }
}

t.test('routes are served by a real Caddy, kept while it is down and restored after it restarts', async (t) => {
  const { target, httpPort, caddy, app } = await withCaddy(t, 200)
  const o = await owner(app)
  const events = recordEvents(app, 'proxy.route.*')
  const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object, token = o.token) =>
    app.inject({
      method,
      url: `/api/v1/hal/network${path.startsWith('/ssl') ? '' : '/proxy'}${path}`,
      headers: auth(token),
      ...(payload ? { payload } : {}),
    })

  const created = await call('POST', '/routes', { domain: 'App.Home.Test', target })
  t.equal(created.statusCode, 201, created.body)
  const route = created.json().data
  t.match(route, { domain: 'app.home.test', target, ssl: false, enabled: true, error: null })
  t.match(
    await viaCaddy(httpPort, 'app.home.test'),
    { status: 200, body: 'hello from the app (app.home.test)' },
    'a request through Caddy reaches the target',
  )
  t.equal((await viaCaddy(httpPort, 'other.home.test')).status, 404, 'an unknown host is a 404')

  t.equal((await call('POST', '/routes', { domain: 'app.home.test', target })).statusCode, 409, 'duplicate domain → 409')
  for (const [body, constraint] of [
    [{ domain: 'x.home.test', target: 'ftp://127.0.0.1' }, 'http_url'],
    [{ domain: 'x.home.test', target: 'not a url' }, 'http_url'],
    [{ domain: 'x.home.test', target: `${target}/path` }, 'origin'],
    [{ domain: 'bad domain', target }, 'hostname'],
  ] as const) {
    const res = await call('POST', '/routes', body)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.equal(res.json().error.details.constraint, constraint)
  }

  const member = await addUser(app, o.token)
  t.equal((await call('GET', '/routes', undefined, member.token)).statusCode, 200, 'any signed-in user reads routes')
  const byAgent = await call('GET', '/routes', undefined, await apiKey(app, o.token, { scope: 'agent' }))
  t.equal(byAgent.statusCode, 403, 'agent keys do not reach the proxy')
  t.equal((await call('POST', '/routes', { domain: 'm.home.test', target }, member.token)).statusCode, 403, 'changes need an admin')

  t.equal((await call('PUT', `/routes/${route.id}`, { enabled: false })).json().data.enabled, false)
  t.equal((await viaCaddy(httpPort, 'app.home.test')).status, 404, 'a disabled route is kept but not served')
  await call('PUT', `/routes/${route.id}`, { enabled: true })
  t.equal((await viaCaddy(httpPort, 'app.home.test')).status, 200, 'enabled again')

  await caddy.stop()
  const whileDown = await call('POST', '/routes', { domain: 'late.home.test', target })
  t.equal(whileDown.statusCode, 201, 'a write while Caddy is down is kept and answered')
  const health = (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data
  t.equal(health.components.proxy.status, 'degraded')
  t.equal(health.status, 'degraded')

  await caddy.start() // a fresh Caddy: empty config, as after a restart without --resume
  const restored = await until(
    () => viaCaddy(httpPort, 'late.home.test'),
    (r) => r.status === 200,
  )
  t.equal(restored?.status, 200, 'the routes are pushed again without a Hearth restart')
  t.equal((await viaCaddy(httpPort, 'app.home.test')).status, 200)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.proxy.status, 'ok')

  t.same((await call('DELETE', `/routes/${route.id}`)).json().data, { id: route.id, deleted: true })
  t.equal((await viaCaddy(httpPort, 'app.home.test')).status, 404, 'a deleted route is gone from Caddy')
  t.equal((await call('DELETE', `/routes/${route.id}`)).statusCode, 404)
  t.same(
    events.map((e) => e.type),
    ['proxy.route.created', 'proxy.route.updated', 'proxy.route.updated', 'proxy.route.created', 'proxy.route.deleted'],
  )
  t.ok(
    events.every((e) => e.userId === null),
    'instance events: admins only on the WebSocket',
  )
})

t.test('without Caddy and without routes the daemon stays healthy', async (t) => {
  const app = await build(t, { env: { HEARTH_CADDY_ADMIN: `http://127.0.0.1:${await freePort()}` } })
  const health = (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data
  t.equal(health.components.proxy.status, 'ok')
})

t.test('a proxy port taken by another program: one clear error on every route and in health, never a 500', async (t) => {
  const blocker = createServer((_req, res) => res.end('someone else'))
  const [adminPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()]
  await new Promise<void>((r) => blocker.listen(httpPort, r))
  t.teardown(() => blocker.close())
  await runCaddy(t, adminPort)
  const app = await build(t, {
    env: {
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
    },
  })
  const o = await owner(app)
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/hal/network/proxy/routes',
    headers: auth(o.token),
    payload: { domain: 'app.home.test', target: 'http://127.0.0.1:9' },
  })
  t.equal(res.statusCode, 201, 'the route is kept')
  t.match(res.json().data.error, new RegExp(`port ${httpPort} is already in use by another program`))
  const health = (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.proxy
  t.equal(health.status, 'degraded')
  t.match(health.message, /already in use/)
})

t.test('Caddy restarted from its own Caddyfile: /health says it lost the routes, and they come back', async (t) => {
  // No reconciliation on a timer here: /health alone notices the loss.
  const { target, httpPort, caddy, app } = await withCaddy(t, 600_000)
  const o = await owner(app)
  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/hal/network/proxy/routes',
    headers: auth(o.token),
    payload: { domain: 'svc.home.test', target },
  })
  t.equal(created.statusCode, 201)
  t.equal((await viaCaddy(httpPort, 'svc.home.test')).body, 'hello from the app (svc.home.test)')
  const health = async () => (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.proxy
  t.match(await health(), { status: 'ok', message: '1 routes served by Caddy' })

  await caddy.stop()
  await caddy.start() // what `systemctl restart caddy` does: its Caddyfile, none of Hearth's routes
  t.equal((await viaCaddy(httpPort, 'svc.home.test').catch(() => ({ status: 0 }))).status, 0, 'the restarted Caddy serves nothing')
  // Caddy is asked at most once a second however often /health is.
  const lost = await until(health, (h) => h.status !== 'ok')
  t.equal(lost?.status, 'degraded')
  t.match(lost?.message, /Caddy no longer serves Hearth's config since .*: pushing the routes again/, 'health says why')

  const back = await until(
    () => viaCaddy(httpPort, 'svc.home.test'),
    (r) => r.status === 200,
  )
  t.equal(back?.body, 'hello from the app (svc.home.test)', 'the routes are pushed again')
  const healed = await until(health, (h) => h.status === 'ok')
  t.match(healed, { status: 'ok', message: /1 routes served by Caddy; pushed again at .* after Caddy had lost them/ })
})
