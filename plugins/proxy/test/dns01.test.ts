import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { auth, build, owner, recordEvents } from '../../../test/helper.js'
import { startPorkbun } from '../../../drivers/dns-providers/porkbun/test/server.js'
import { freePort } from '../../dns/test/support.js'
import { httpsGet, pebbleRoot, startPebbleAndCaddy, testCa, until } from './tls-support.js'

/**
 * DNS-01 beyond Debian's Caddy: a wildcard route in a zone Hearth serves gets a
 * certificate that Hearth obtains itself with acme-client from pebble, which really checks the
 * challenge TXT record by asking Hearth's own DNS server; Caddy serves the certificate.
 */
t.test('a wildcard certificate through Hearth’s own DNS, checked by pebble', async (t) => {
  t.setTimeout(120_000)
  const dir = mkdtempSync(join(tmpdir(), 'hearth-dns01-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await testCa(dir)
  const [acmePort, mgmtPort, adminPort, httpPort, httpsPort, dnsPort] = await Promise.all(Array.from({ length: 6 }, () => freePort()))
  await startPebbleAndCaddy(t, dir, { acmePort, mgmtPort, adminPort, httpPort, httpsPort }, `127.0.0.1:${dnsPort}`)

  const upstream = createServer((req, res) => res.end(`wild hello ${req.headers.host}`))
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r))
  t.teardown(() => upstream.close())
  const app = await build(t, {
    env: {
      HEARTH_DNS_PORT: String(dnsPort),
      HEARTH_DNS_HOST: '127.0.0.1',
      HEARTH_DNS_RATE_LIMIT: '0',
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
      HEARTH_ACME_DIRECTORY: `https://127.0.0.1:${acmePort}/dir`,
      HEARTH_ACME_CA_ROOT: join(dir, 'ca.pem'),
      HEARTH_PROXY_RECONCILE_MS: '200',
    },
  })
  const o = await owner(app)
  const h = auth(o.token)
  const events = recordEvents(app, 'ssl.changed')
  const zone = await app.inject({
    method: 'POST',
    url: '/api/v1/dns/zones',
    headers: h,
    payload: { zone: 'example.org', mode: 'authoritative' },
  })
  t.equal(zone.statusCode, 201)
  const target = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  const route = await app.inject({
    method: 'POST',
    url: '/api/v1/hal/network/proxy/routes',
    headers: h,
    payload: { domain: '*.example.org', target, ssl: true },
  })
  t.equal(route.statusCode, 201, route.body)
  const orphan = await app.inject({
    method: 'POST',
    url: '/api/v1/hal/network/proxy/routes',
    headers: h,
    payload: { domain: '*.nobody.example', target, ssl: true },
  })
  t.equal(orphan.statusCode, 201)

  const status = await until(
    async () =>
      (await app.inject({ method: 'GET', url: '/api/v1/hal/network/ssl/status', headers: h })).json().data as Array<{
        domain: string
        status: string
      }>,
    (entries) =>
      entries.find((e) => e.domain === '*.example.org')?.status === 'valid' &&
      entries.find((e) => e.domain === '*.nobody.example')?.status === 'error',
    60_000,
  )
  t.match(
    status?.find((e) => e.domain === '*.example.org'),
    { status: 'valid', issuer: /Pebble/, error: null },
    'issued by pebble after it read the TXT from Hearth',
  )
  t.match(
    status?.find((e) => e.domain === '*.nobody.example'),
    { status: 'error', error: /no DNS answers for _acme-challenge\.nobody\.example/ },
    'a name no DNS of Hearth’s reaches: one clear error',
  )

  const root = await pebbleRoot(mgmtPort, join(dir, 'ca.pem'))
  const served = await until(
    () => httpsGet(httpsPort, 'app.example.org', root as string),
    (r) => r.status === 200,
    20_000,
  )
  t.equal(served?.body, 'wild hello app.example.org', 'Caddy serves the wildcard certificate Hearth obtained')
  t.match(served?.cert?.subjectAltName ?? '', /\*\.example\.org/)
  t.same(
    events.map((e) => [e.userId, (e.data as { domain: string; status: string }).domain, (e.data as { status: string }).status]).sort(),
    [
      [null, '*.example.org', 'valid'],
      [null, '*.nobody.example', 'error'],
    ],
    'ssl.changed for each outcome (an instance event: admins only on the WebSocket)',
  )
  const challenge = await app.inject({ method: 'GET', url: `/api/v1/dns/zones/${zone.json().data.id}/records`, headers: h })
  t.notMatch(challenge.body, /_acme-challenge/, 'the challenge never became a stored record')
})

t.test('DNS-01 through the DNS-provider integration: the TXT is written at the provider, then removed', async (t) => {
  t.setTimeout(120_000)
  const dir = mkdtempSync(join(tmpdir(), 'hearth-dns01p-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  await testCa(dir)
  const [acmePort, mgmtPort, adminPort, httpPort, httpsPort] = await Promise.all(Array.from({ length: 5 }, () => freePort()))
  // The provider's local server answers its API, not DNS: pebble is told every challenge is valid here.
  await startPebbleAndCaddy(t, dir, { acmePort, mgmtPort, adminPort, httpPort, httpsPort })
  const keys = { apikey: 'pk1_dns01_provider_0001', secretapikey: 'sk1_dns01_provider_0002' }
  const porkbun = await startPorkbun(keys, { 'provider.example': [] })
  t.teardown(() => porkbun.close())
  const app = await build(t, {
    env: {
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
      HEARTH_ACME_DIRECTORY: `https://127.0.0.1:${acmePort}/dir`,
      HEARTH_ACME_CA_ROOT: join(dir, 'ca.pem'),
      HEARTH_PORKBUN_API_URL: porkbun.url,
      HEARTH_PROXY_RECONCILE_MS: '200',
    },
  })
  const h = auth((await owner(app)).token)
  const configured = await app.inject({
    method: 'PUT',
    url: '/api/v1/proxy/dns-provider/config',
    headers: h,
    payload: { provider: 'porkbun', credentials: keys, zone: 'provider.example' },
  })
  t.equal(configured.statusCode, 200, configured.body)
  const route = await app.inject({
    method: 'POST',
    url: '/api/v1/hal/network/proxy/routes',
    headers: h,
    payload: { domain: '*.provider.example', target: 'http://127.0.0.1:9', ssl: true },
  })
  t.equal(route.statusCode, 201)
  const status = await until(
    async () =>
      (await app.inject({ method: 'GET', url: '/api/v1/hal/network/ssl/status', headers: h })).json().data[0] as { status: string },
    (entry) => entry?.status === 'valid' || entry?.status === 'error',
    60_000,
  )
  t.match(status, { status: 'valid', issuer: /Pebble/ })
  const writes = porkbun.requests.map((r) => r.path).filter((p) => /dns\/(create|delete)/.test(p))
  t.ok(
    writes.some((p) => p.includes('/dns/create/provider.example')),
    'the TXT was created at the provider',
  )
  t.ok(
    writes.some((p) => p.includes('/dns/delete/provider.example')),
    'and removed after',
  )
  t.same(porkbun.state.records('provider.example') ?? [], [], 'nothing left behind')
})
