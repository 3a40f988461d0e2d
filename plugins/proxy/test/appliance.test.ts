import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startDaemon } from '../../../test/cli-process.js'
import { freePort } from '../../dns/test/support.js'
import { systemUser, viaCaddy } from './caddy-user.js'
import { httpsGet, pebbleRoot, startPebbleAndCaddy, testCa, until } from './tls-support.js'

/**
 * The appliance as installed: the daemon runs as an unprivileged user on a data folder only it can
 * read, Debian's Caddy as user caddy from a Caddyfile, pebble as the ACME server. Through the daemon's
 * HTTP API: an HTTP route and two HTTPS routes (pebble, and the local CA) are reached through Caddy,
 * SSL status is read without a file of Caddy's, the local CA is downloaded, and Caddy restarted from
 * its Caddyfile is noticed by /health and gets the routes back.
 */
const caddy = systemUser('caddy')
const daemonUser = systemUser('nobody')
const why =
  process.getuid?.() !== 0
    ? 'needs root to run Caddy as user caddy and the daemon as nobody'
    : !caddy
      ? 'no user caddy: apt-get install caddy'
      : !daemonUser
        ? 'no user nobody'
        : null

/** `/proc/<pid>/status`'s real uid. */
const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])

t.test('Hearth as its own user drives Caddy as caddy: routes, certificates, the CA, a Caddy restart', { skip: why ?? false }, async (t) => {
  t.setTimeout(180_000)
  const user = daemonUser as { uid: number; gid: number }
  const dir = mkdtempSync(join(tmpdir(), 'hearth-appliance-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await testCa(dir)
  const [acmePort, mgmtPort, adminPort, httpPort, httpsPort] = await Promise.all(Array.from({ length: 5 }, () => freePort()))
  const proxy = await startPebbleAndCaddy(t, dir, { acmePort, mgmtPort, adminPort, httpPort, httpsPort })

  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-appliance-data-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  chownSync(dataDir, user.uid, user.gid)
  chmodSync(dataDir, 0o700)
  const upstream = createServer((req, res) => res.end(`app says hi to ${req.headers.host}`))
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  t.teardown(() => upstream.close())
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`

  const daemon = await startDaemon(
    t,
    dataDir,
    {
      HOME: dataDir,
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
      HEARTH_ACME_DIRECTORY: `https://127.0.0.1:${acmePort}/dir`,
      HEARTH_ACME_CA_ROOT: join(dir, 'ca.pem'),
      // No reconciliation within the test: /health is what notices Caddy's restart (a timer could push the routes back first).
      HEARTH_PROXY_RECONCILE_MS: '600000',
    },
    user,
  )
  t.equal(uidOf(daemon.pid), user.uid, 'the daemon runs as nobody')
  t.equal(statSync(dataDir).mode & 0o777, 0o700, 'on a data folder Caddy cannot enter')
  t.ok(proxy.asCaddy, 'Caddy runs as user caddy')

  const setup = await fetch(`${daemon.base}/auth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'owner@example.test', password: 'correct horse battery staple' }),
  })
  const token = ((await setup.json()) as { data: { accessToken: string } }).data.accessToken
  const api = async (method: string, path: string, body?: object, headers: Record<string, string> = {}) => {
    const res = await fetch(`${daemon.base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body ? JSON.stringify(body) : undefined,
    })
    return { status: res.status, text: await res.text() }
  }
  const health = async () => JSON.parse((await api('GET', '/health')).text).data.components.proxy as { status: string; message: string }

  for (const route of [
    { domain: 'app.home.test', target },
    { domain: 'nas.home.arpa', target, ssl: true },
    { domain: 'app.example.net', target, ssl: true },
  ]) {
    const res = await api('POST', '/hal/network/proxy/routes', route)
    t.equal(res.status, 201, res.text)
    t.equal(JSON.parse(res.text).data.error, null, `${route.domain}: Caddy accepted it`)
  }
  t.match(await viaCaddy(httpPort, 'app.home.test'), { status: 200, body: 'app says hi to app.home.test' }, 'the HTTP route through Caddy')

  const issued = await until(
    async () => JSON.parse((await api('GET', '/hal/network/ssl/status')).text).data as Array<{ domain: string; status: string }>,
    (entries) => entries.length === 2 && entries.every((e) => e.status === 'valid'),
    60_000,
  )
  t.match(
    issued?.find((e) => e.domain === 'app.example.net'),
    { status: 'valid', issuer: /Pebble/ },
    'pebble’s certificate, read from Caddy',
  )
  t.match(
    issued?.find((e) => e.domain === 'nas.home.arpa'),
    { status: 'valid', issuer: /Caddy Local Authority/ },
  )
  const root = (await pebbleRoot(mgmtPort, join(dir, 'ca.pem'))) as string
  t.match(await httpsGet(httpsPort, 'app.example.net', root), { status: 200, body: 'app says hi to app.example.net' }, 'the HTTPS route')

  const ca = await api('GET', '/hal/network/ssl/ca', undefined, { accept: 'application/x-pem-file' })
  t.equal(ca.status, 200)
  t.match(ca.text, /^-----BEGIN CERTIFICATE-----/, 'the local CA downloaded')
  t.equal((await httpsGet(httpsPort, 'nas.home.arpa', ca.text)).status, 200, 'the LAN name verifies against it')
  t.match(await health(), { status: 'ok', message: '3 routes served by Caddy' })

  await proxy.stop()
  await proxy.start() // systemctl restart caddy: its Caddyfile, none of Hearth's routes
  const noticed = await until(health, (h) => h.status !== 'ok', 20_000)
  t.match(noticed, { status: 'degraded', message: /Caddy no longer serves Hearth's config|Caddy unreachable/ }, 'health says why')
  const back = await until(
    () => viaCaddy(httpPort, 'app.home.test'),
    (r) => r.status === 200,
  )
  t.equal(back?.status, 200, 'the HTTP route is back')
  t.equal((await httpsGet(httpsPort, 'app.example.net', root)).status, 200, 'the HTTPS route is back with its certificate')
  t.match(await until(health, (h) => h.status === 'ok'), {
    status: 'ok',
    message: /3 routes served by Caddy; pushed again at .* after Caddy (had lost them|answered again)/,
  })
})
