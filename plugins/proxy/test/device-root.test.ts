import { execFileSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { request } from 'node:https'
import t from 'tap'
import { auth, build, owner } from '../../../test/helper.js'
import { freePort } from '../../dns/test/support.js'
import { runCaddy } from './caddy-user.js'
import { httpsGet, until } from './tls-support.js'

/**
 * Adding an iPhone to a Hearth reached at a LAN name: a real Caddy (run as user caddy) serves the
 * name with a certificate of its local CA, the member downloads the configuration profile through
 * that Caddy over HTTPS, and the profile carries the CA's root as Apple's `com.apple.security.root`
 * payload, read back with Debian's python3 plistlib and checked against the keys Apple's Device
 * Management reference documents (CertificateRoot: PayloadContent the certificate's DER bytes,
 * PayloadCertificateFileName; the common payload keys).
 */

const PYTHON = '/usr/bin/python3'
type Payload = Record<string, unknown> & { PayloadType: string; PayloadContent?: unknown }
/** The plist as JSON, <data> as base64 (JSON has no bytes). */
const readPlist = (text: string): Payload & { PayloadContent: Payload[] } =>
  JSON.parse(
    execFileSync(
      PYTHON,
      [
        '-c',
        'import sys, json, base64, plistlib\nprint(json.dumps(plistlib.loads(sys.stdin.buffer.read()), default=lambda b: {"data": base64.b64encode(b).decode()}))',
      ],
      { input: text },
    ).toString(),
  )

/** POST over HTTPS to Caddy on 127.0.0.1, as a phone would to https://<name>:<port>, trusting only `ca`. */
function httpsPost(port: number, name: string, ca: string, path: string, headers: Record<string, string>, body: object) {
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    const payload = JSON.stringify(body)
    const req = request(
      {
        host: '127.0.0.1',
        port,
        servername: name,
        method: 'POST',
        path,
        ca,
        headers: { host: `${name}:${port}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
        timeout: 10_000,
      },
      (res) => {
        let text = ''
        res.on('data', (c) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body: text }))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

t.test('the Apple profile carries the local CA’s root when Caddy’s local CA serves the name it was asked at', async (t) => {
  t.setTimeout(120_000)
  const [adminPort, httpPort, httpsPort] = [await freePort(), await freePort(), await freePort()]
  await runCaddy(t, adminPort)
  const app = await build(t, {
    env: {
      HEARTH_CADDY_ADMIN: `http://127.0.0.1:${adminPort}`,
      HEARTH_PROXY_HTTP_PORT: String(httpPort),
      HEARTH_PROXY_HTTPS_PORT: String(httpsPort),
      HEARTH_PROXY_RECONCILE_MS: '200',
    },
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const o = await owner(app)
  const name = 'nas.home.arpa'
  const route = await app.inject({
    method: 'POST',
    url: '/api/v1/hal/network/proxy/routes',
    headers: auth(o.token),
    payload: { domain: name, target: base, ssl: true },
  })
  t.equal(route.statusCode, 201, route.statusCode === 201 ? 'an HTTPS route for the LAN name, to this Hearth' : route.body)
  const ca = await until(
    async () => (await app.inject({ method: 'GET', url: '/api/v1/hal/network/ssl/ca', headers: auth(o.token) })).json().data?.pem as string,
    (pem) => typeof pem === 'string' && pem.includes('BEGIN CERTIFICATE'),
  )
  t.ok(ca, 'Caddy’s local CA root, through the API')
  const served = await until(
    () => httpsGet(httpsPort, name, ca as string),
    (r) => r.status === 200 || r.status === 404,
  )
  t.ok(served, 'Caddy serves Hearth at the LAN name with a certificate of its local CA')

  const res = await httpsPost(httpsPort, name, ca as string, '/api/v1/devices/apple-profile', auth(o.token), { name: 'Ann’s iPhone' })
  t.equal(res.status, 200, res.status === 200 ? 'the profile, through Caddy over HTTPS' : res.body)
  t.equal(res.type, 'application/x-apple-aspen-config')
  const profile = readPlist(res.body)
  t.same(
    profile.PayloadContent.map((p) => p.PayloadType),
    ['com.apple.security.root', 'com.apple.caldav.account', 'com.apple.carddav.account'],
    'the root first, then the accounts',
  )
  const [root, caldav] = profile.PayloadContent as [Payload, Payload]
  // Common payload keys (CommonPayloadKeys) and CertificateRoot's own.
  t.match(root, {
    PayloadVersion: 1,
    PayloadIdentifier: new RegExp(`^${String(profile.PayloadIdentifier).replace(/\./g, '\\.')}\\.root$`),
    PayloadUUID: /^[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}$/,
    PayloadDisplayName: /Hearth/,
    PayloadCertificateFileName: /\.cer$/,
  })
  const der = Buffer.from((root.PayloadContent as { data: string }).data, 'base64')
  const cert = new X509Certificate(der)
  t.ok(cert.raw.equals(new X509Certificate(ca as string).raw), 'PayloadContent is the DER bytes of the root the API reports')
  t.match(cert.subject, /Caddy Local Authority/)
  t.ok(cert.ca, 'a CA certificate')
  t.match(caldav, { CalDAVHostName: name, CalDAVPort: httpsPort, CalDAVUseSSL: true }, 'the account is at the name the root vouches for')

  // Asked over plain HTTP, or at a name no route of the local CA serves: no root to trust.
  for (const [what, headers] of [
    ['plain HTTP', { host: `${name}:7200` }],
    ['a name without a route', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'other.home.arpa' }],
  ] as const) {
    const plain = await app.inject({
      method: 'POST',
      url: '/api/v1/devices/apple-profile',
      headers: { ...auth(o.token), ...headers },
      payload: { name: 'x' },
    })
    t.equal(plain.statusCode, 200, plain.statusCode === 200 ? what : plain.body)
    t.same(
      readPlist(plain.body).PayloadContent.map((p) => p.PayloadType),
      ['com.apple.caldav.account', 'com.apple.carddav.account'],
      what,
    )
  }
})
