import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { addUser, apiKey, auth, build, owner, recordEvents, type TestContext } from '../../../test/helper.js'
import { freePort } from '../../dns/test/support.js'
import { until } from './tls-support.js'

/**
 * Proxy routes through the HTTP API against a real Caddy (Debian's caddy, started here on free
 * loopback ports with its own data folder): CRUD and validation, requests reaching the target,
 * disable/enable/delete taking effect, and a killed and restarted Caddy getting its routes back
 * without a Hearth restart (issue 10, item 2).
 */

async function startCaddy(t: TestContext, adminPort: number) {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-caddy-'))
  const config = join(dir, 'initial.json')
  writeFileSync(config, JSON.stringify({ admin: { listen: `127.0.0.1:${adminPort}` } }))
  let child: ChildProcess | null = null
  const start = async () => {
    child = spawn('caddy', ['run', '--config', config], {
      env: { ...process.env, XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') },
      stdio: 'ignore',
    })
    // Up to 20 s: a loaded CI machine starts Caddy in seconds, not the usual 100-300 ms.
    const ready = await until(
      () => get(adminPort, `127.0.0.1:${adminPort}`, '/config/'),
      (r) => r.status === 200,
      20_000,
    )
    if (ready?.status === 200) return
    throw new Error('caddy did not start (is Debian’s caddy installed?)')
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!child || child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGKILL')
    })
  t.teardown(async () => {
    await stop()
    rmSync(dir, { recursive: true, force: true })
  })
  await start()
  return { start, stop }
}

/** One HTTP GET to 127.0.0.1:port with the given Host header. */
function get(port: number, host: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, timeout: 3000, agent: false }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.end()
  })
}

t.test('routes are served by a real Caddy, kept while it is down and restored after it restarts', async (t) => {
  const upstream = createServer((req, res) => res.end(`hello from the app (${req.headers.host})`))
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  t.teardown(() => upstream.close())
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  const [adminPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()]
  const caddy = await startCaddy(t, adminPort)
  const app = await build(t, {
    env: {
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
      HEARTH_PROXY_RECONCILE_MS: '200',
    },
  })
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
    await get(httpPort, 'app.home.test'),
    { status: 200, body: 'hello from the app (app.home.test)' },
    'a request through Caddy reaches the target',
  )
  t.equal((await get(httpPort, 'other.home.test')).status, 404, 'an unknown host is a 404')

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
  t.equal((await get(httpPort, 'app.home.test')).status, 404, 'a disabled route is kept but not served')
  await call('PUT', `/routes/${route.id}`, { enabled: true })
  t.equal((await get(httpPort, 'app.home.test')).status, 200, 'enabled again')

  await caddy.stop()
  const whileDown = await call('POST', '/routes', { domain: 'late.home.test', target })
  t.equal(whileDown.statusCode, 201, 'a write while Caddy is down is kept and answered')
  const health = (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data
  t.equal(health.components.proxy.status, 'degraded')
  t.equal(health.status, 'degraded')

  await caddy.start() // a fresh Caddy: empty config, as after a restart without --resume
  const restored = await until(
    () => get(httpPort, 'late.home.test'),
    (r) => r.status === 200,
  )
  t.equal(restored?.status, 200, 'the routes are pushed again without a Hearth restart')
  t.equal((await get(httpPort, 'app.home.test')).status, 200)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.proxy.status, 'ok')

  t.same((await call('DELETE', `/routes/${route.id}`)).json().data, { id: route.id, deleted: true })
  t.equal((await get(httpPort, 'app.home.test')).status, 404, 'a deleted route is gone from Caddy')
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
  await startCaddy(t, adminPort)
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
