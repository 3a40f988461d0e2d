import { execFile, spawn } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { request } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { auth, build, owner, type TestContext } from '../../../test/helper.js'
import { freePort } from '../../dns/test/support.js'

/**
 * HTTPS routes get real certificates: Debian's pebble (an RFC 8555 ACME test server) issues them to
 * a real Caddy, which serves them; SSL status reads them back; the local CA serves LAN names and can
 * be downloaded (issue 10, item 3).
 */
const run = promisify(execFile)

/** A throw-away CA and a 127.0.0.1 certificate for pebble's own HTTPS listener. */
async function testCa(dir: string) {
  const o = (...args: string[]) => run('openssl', args)
  await o(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    join(dir, 'ca.key'),
    '-out',
    join(dir, 'ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=hearth test CA',
  )
  await o(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    join(dir, 'leaf.key'),
    '-out',
    join(dir, 'leaf.csr'),
    '-subj',
    '/CN=localhost',
  )
  writeFileSync(join(dir, 'ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n')
  await o(
    'x509',
    '-req',
    '-in',
    join(dir, 'leaf.csr'),
    '-CA',
    join(dir, 'ca.pem'),
    '-CAkey',
    join(dir, 'ca.key'),
    '-CAcreateserial',
    '-out',
    join(dir, 'leaf.pem'),
    '-days',
    '2',
    '-extfile',
    join(dir, 'ext'),
  )
}

function spawnKept(t: TestContext, cmd: string, args: string[], env: Record<string, string>) {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  // HEARTH_TLS_DEBUG=1 shows pebble's and Caddy's logs when issuance needs explaining.
  child.stderr?.on('data', (c: Buffer) => process.env.HEARTH_TLS_DEBUG && process.stderr.write(c))
  t.teardown(() => void child.kill('SIGKILL'))
  return child
}

/** GET https://domain:port/ through 127.0.0.1, trusting only `ca`; the body and the certificate served. */
function httpsGet(port: number, domain: string, ca: string): Promise<{ status: number; body: string; cert: X509Certificate | null }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, servername: domain, headers: { host: domain }, ca, timeout: 5000 }, (res) => {
      let body = ''
      const raw =
        (res.socket as unknown as { getPeerX509Certificate?: () => X509Certificate | undefined }).getPeerX509Certificate?.() ?? null
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cert: raw }))
    })
    req.on('error', reject)
    req.end()
  })
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T | null> {
  const end = Date.now() + ms
  for (;;) {
    const value = await fn().catch(() => null)
    if (value !== null && ok(value)) return value
    if (Date.now() > end) return value
    await new Promise((r) => setTimeout(r, 250))
  }
}

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
  writeFileSync(
    join(dir, 'pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${mgmtPort}`,
        certificate: join(dir, 'leaf.pem'),
        privateKey: join(dir, 'leaf.key'),
        httpPort,
        tlsPort: httpsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  )
  // Pebble cannot reach a real validation target here: it is told every challenge is valid.
  spawnKept(t, 'pebble', ['-config', join(dir, 'pebble.json')], { PEBBLE_VA_ALWAYS_VALID: '1', PEBBLE_VA_NOSLEEP: '1' })
  writeFileSync(join(dir, 'caddy.json'), JSON.stringify({ admin: { listen: `127.0.0.1:${adminPort}` } }))
  spawnKept(t, 'caddy', ['run', '--config', join(dir, 'caddy.json')], {
    XDG_DATA_HOME: join(dir, 'xdg'),
    XDG_CONFIG_HOME: join(dir, 'xdg'),
  })

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

  const pebbleRoot = await until(
    () =>
      new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: mgmtPort, path: '/roots/0', ca: readFileSync(join(dir, 'ca.pem')) }, (res) => {
          let body = ''
          res.on('data', (c) => (body += c))
          res.on('end', () => resolve(body))
        })
        req.on('error', reject)
        req.end()
      }),
    (pem) => pem.includes('BEGIN CERTIFICATE'),
  )
  const served = await httpsGet(httpsPort, 'app.example.net', pebbleRoot as string)
  t.equal(served.status, 200)
  t.equal(served.body, 'secure hello', 'the proxied answer over HTTPS, verified against pebble’s root')

  const ca = await call('/ssl/ca')
  t.equal(ca.statusCode, 200)
  t.match(ca.json().data, { pem: /BEGIN CERTIFICATE/, fingerprint_sha256: /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/ })
  const local = await httpsGet(httpsPort, 'nas.home.arpa', ca.json().data.pem)
  t.equal(local.body, 'secure hello', 'the LAN name verifies against the downloaded CA')
  const pemFile = await call('/ssl/ca', { headers: { accept: 'application/x-pem-file' } })
  t.equal(pemFile.headers['content-type'], 'application/x-pem-file')
  t.equal(pemFile.body, ca.json().data.pem, 'the raw PEM on request')
})
