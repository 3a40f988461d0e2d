import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { auth, build, owner } from '../../../test/helper.js'
import { freePort } from '../../dns/test/support.js'
import { runCaddy } from './caddy-user.js'
import { httpsGet, pebbleRoot, startPebbleAndCaddy, testCa, until } from './tls-support.js'

/**
 * HTTPS routes get real certificates: Debian's pebble (an RFC 8555 ACME test server) issues them to
 * a real Caddy run as user caddy, which serves them; SSL status reads them from what Caddy serves
 * (Hearth cannot read Caddy's storage); the local CA serves LAN names and is downloaded through
 * Caddy's admin API; a failed issuance reaches Hearth through Caddy's log sent to Hearth's
 * loopback port.
 */
t.test('an ssl route gets a certificate from pebble through Caddy; SSL status and the CA', async (t) => {
  t.setTimeout(120_000)
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tls-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await testCa(dir)
  const [acmePort, mgmtPort, adminPort, httpPort, httpsPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ])
  await startPebbleAndCaddy(t, dir, { acmePort, mgmtPort, adminPort, httpPort, httpsPort })

  const upstream = createServer((_req, res) => res.end('secure hello'))
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  t.teardown(() => upstream.close())
  const app = await build(t, {
    env: {
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
      HEARTH_ACME_DIRECTORY: `https://127.0.0.1:${acmePort}/dir`,
      HEARTH_ACME_CA_ROOT: join(dir, 'ca.pem'),
      HEARTH_PROXY_RECONCILE_MS: '200',
    },
  })
  const o = await owner(app)
  const call = (path: string, init: { method?: 'GET' | 'POST'; payload?: object; headers?: Record<string, string> } = {}) =>
    app.inject({
      method: init.method ?? 'GET',
      url: `/api/v1/hal/network${path}`,
      headers: auth(o.token, init.headers),
      ...(init.payload ? { payload: init.payload } : {}),
    })
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  // Caddy may still be starting: the reconciliation pushes once it answers.
  // The ACME route last: a config reload cancels an issuance under way, and Caddy retries only a minute later.
  await call('/proxy/routes', { method: 'POST', payload: { domain: 'nas.home.arpa', target, ssl: true } })
  const created = await call('/proxy/routes', { method: 'POST', payload: { domain: 'app.example.net', target, ssl: true } })
  t.equal(created.statusCode, 201, created.body)

  const pending = (await call('/ssl/status')).json().data
  t.ok(
    pending.length === 2 && pending.every((e: { status: string }) => ['pending', 'valid', 'error'].includes(e.status)),
    'listed before issuance',
  )

  const issued = await until(
    async () => (await call('/ssl/status')).json().data as Array<{ domain: string; status: string }>,
    (entries) => entries.every((e) => e.status === 'valid'),
  )
  const acme = issued?.find((e) => e.domain === 'app.example.net')
  t.match(acme, { status: 'valid', auto_renew: true, error: null, issuer: /Pebble/ }, 'a real certificate from pebble')
  t.ok((acme as unknown as { days_left: number }).days_left > 30)
  t.match(
    issued?.find((e) => e.domain === 'nas.home.arpa'),
    { status: 'valid', issuer: /Caddy Local Authority/ },
    'a LAN name from the local CA',
  )

  const root = await pebbleRoot(mgmtPort, join(dir, 'ca.pem'))
  const served = await httpsGet(httpsPort, 'app.example.net', root as string)
  t.equal(served.status, 200)
  t.equal(served.body, 'secure hello', 'the proxied answer over HTTPS, verified against pebble’s root')
  t.equal(
    (acme as unknown as { not_after: string }).not_after,
    new Date(served.cert?.validTo ?? 0).toISOString(),
    'SSL status is the certificate clients are served',
  )

  const ca = await call('/ssl/ca')
  t.equal(ca.statusCode, 200)
  t.match(ca.json().data, { pem: /BEGIN CERTIFICATE/, fingerprint_sha256: /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/ })
  const local = await httpsGet(httpsPort, 'nas.home.arpa', ca.json().data.pem)
  t.equal(local.body, 'secure hello', 'the LAN name verifies against the downloaded CA')
  const pemFile = await call('/ssl/ca', { headers: { accept: 'application/x-pem-file' } })
  t.equal(pemFile.headers['content-type'], 'application/x-pem-file')
  t.equal(pemFile.body, ca.json().data.pem, 'the raw PEM on request')
})

t.test('an ACME failure shows in SSL status with Caddy’s reason, not as a silent pending', async (t) => {
  t.setTimeout(60_000)
  const dir = mkdtempSync(join(tmpdir(), 'hearth-tlsfail-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const [adminPort, httpPort, httpsPort, closed] = await Promise.all([freePort(), freePort(), freePort(), freePort()])
  await runCaddy(t, adminPort)
  const app = await build(t, {
    env: {
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
      HEARTH_ACME_DIRECTORY: `https://127.0.0.1:${closed}/dir`,
      HEARTH_PROXY_RECONCILE_MS: '200',
    },
  })
  const h = auth((await owner(app)).token)
  await app.inject({
    method: 'POST',
    url: '/api/v1/hal/network/proxy/routes',
    headers: h,
    payload: { domain: 'app.example.net', target: 'http://127.0.0.1:9', ssl: true },
  })
  const entry = await until(
    async () =>
      (await app.inject({ method: 'GET', url: '/api/v1/hal/network/ssl/status', headers: h })).json().data[0] as {
        status: string
        error: string | null
      },
    (e) => e?.status === 'error',
    30_000,
  )
  t.match(entry, { status: 'error', error: /connection refused|127\.0\.0\.1/ }, 'the reason Caddy logged')
})
