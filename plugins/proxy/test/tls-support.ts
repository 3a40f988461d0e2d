import { execFile, spawn } from 'node:child_process'
import type { X509Certificate } from 'node:crypto'
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { request } from 'node:https'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { TestContext } from '../../../test/helper.js'
import { type CaddyProcess, runCaddy } from './caddy-user.js'

/** What the TLS tests share: a throw-away CA, kept processes, HTTPS requests through Caddy, polling. */
const run = promisify(execFile)

/** A throw-away CA and a 127.0.0.1 certificate for pebble's own HTTPS listener. */
export async function testCa(dir: string) {
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

export function spawnKept(t: TestContext, cmd: string, args: string[], env: Record<string, string>) {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  // HEARTH_TLS_DEBUG=1 shows pebble's and Caddy's logs when issuance needs explaining.
  child.stderr?.on('data', (c: Buffer) => process.env.HEARTH_TLS_DEBUG && process.stderr.write(c))
  t.teardown(() => void child.kill('SIGKILL'))
  return child
}

/** GET https://domain:port/ through 127.0.0.1, trusting only `ca`; the body and the certificate served. */
export function httpsGet(
  port: number,
  domain: string,
  ca: string,
): Promise<{ status: number; body: string; cert: X509Certificate | null }> {
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

export async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T | null> {
  const end = Date.now() + ms
  for (;;) {
    const value = await fn().catch(() => null)
    if (value !== null && ok(value)) return value
    if (Date.now() > end) return value
    await new Promise((r) => setTimeout(r, 250))
  }
}

/** pebble's issuing root, from its management API (served over HTTPS with the test CA). */
export function pebbleRoot(mgmtPort: number, caFile: string): Promise<string | null> {
  return until(
    () =>
      new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: mgmtPort, path: '/roots/0', ca: readFileSync(caFile) }, (res) => {
          let body = ''
          res.on('data', (c) => (body += c))
          res.on('end', () => resolve(body))
        })
        req.on('error', reject)
        req.end()
      }),
    (pem) => pem.includes('BEGIN CERTIFICATE'),
  )
}

export interface Ports {
  acmePort: number
  mgmtPort: number
  adminPort: number
  httpPort: number
  httpsPort: number
}

/**
 * pebble (its HTTPS from the test CA in `dir`) and an empty Caddy run as user caddy, both kept for the
 * test. Caddy reads the test CA (HEARTH_ACME_CA_ROOT, `dir`/ca.pem) itself, as it would a root the
 * operator names: that one file is made readable to it, nothing else of `dir`. `dnsServer` makes
 * pebble check DNS-01 records there; without it pebble is told every challenge is valid (it cannot
 * reach a real validation target here).
 */
export async function startPebbleAndCaddy(
  t: TestContext & { comment(message: string): void },
  dir: string,
  p: Ports,
  dnsServer?: string,
): Promise<CaddyProcess> {
  const pebble = {
    listenAddress: `127.0.0.1:${p.acmePort}`,
    managementListenAddress: `127.0.0.1:${p.mgmtPort}`,
    certificate: join(dir, 'leaf.pem'),
    privateKey: join(dir, 'leaf.key'),
    httpPort: p.httpPort,
    tlsPort: p.httpsPort,
    ocspResponderURL: '',
    externalAccountBindingRequired: false,
  }
  writeFileSync(join(dir, 'pebble.json'), JSON.stringify({ pebble }))
  const args = ['-config', join(dir, 'pebble.json'), ...(dnsServer ? ['-dnsserver', dnsServer] : [])]
  spawnKept(t, 'pebble', args, dnsServer ? { PEBBLE_VA_NOSLEEP: '1' } : { PEBBLE_VA_ALWAYS_VALID: '1', PEBBLE_VA_NOSLEEP: '1' })
  chmodSync(dir, 0o711)
  chmodSync(join(dir, 'ca.pem'), 0o644)
  return runCaddy(t, p.adminPort)
}
