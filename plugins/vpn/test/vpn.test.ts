import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { addUser, apiKey, auth, build, owner, recordEvents, type TestContext } from '../../../test/helper.js'
import { sourcePath } from '../../../test/paths.js'

/**
 * The VPN endpoints against a stand-in Tailscale CLI (fixtures/tailscale, its output from the real
 * CLI's source: fixtures/SOURCES.md), in every state: not installed, daemon down, NeedsLogin with
 * its auth URL, Running, Stopped.
 */
const STANDIN = sourcePath(import.meta.url, 'fixtures/tailscale.mjs')

async function vpnApp(t: TestContext, state: string, env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ts-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const stateFile = join(dir, 'state.json')
  writeFileSync(stateFile, JSON.stringify({ state }))
  process.env.TAILSCALE_STANDIN = stateFile
  const app = await build(t, { env: { HEARTH_TAILSCALE_BIN: STANDIN, ...env } })
  const o = await owner(app)
  const call = (method: 'GET' | 'POST', path: string, token = o.token, payload?: object) =>
    app.inject({ method, url: `/api/v1/hal/network/vpn${path}`, headers: auth(token), ...(payload ? { payload } : {}) })
  return { app, o, call, setState: (s: string) => writeFileSync(stateFile, JSON.stringify({ state: s })) }
}

t.test('status maps every backend state', async (t) => {
  const { call, setState } = await vpnApp(t, 'Running')
  t.same((await call('GET', '/status')).json().data, {
    installed: true,
    running: true,
    logged_in: true,
    hostname: 'hearth-nas',
    ip: '100.101.102.103',
    tailnet: 'family@example.com',
  })
  setState('Stopped')
  t.match((await call('GET', '/status')).json().data, { installed: true, running: false, logged_in: true, tailnet: 'family@example.com' })
  setState('NeedsLogin')
  t.same((await call('GET', '/status')).json().data, {
    installed: true,
    running: false,
    logged_in: false,
    hostname: null,
    ip: null,
    tailnet: null,
  })
  setState('down')
  t.same(
    (await call('GET', '/status')).json().data,
    { installed: true, running: false, logged_in: false, hostname: null, ip: null, tailnet: null },
    'tailscaled not running',
  )
})

t.test('no CLI: status says installed false, actions answer 503', async (t) => {
  const { call } = await vpnApp(t, 'Running', { HEARTH_TAILSCALE_BIN: '/nonexistent/tailscale' })
  t.same((await call('GET', '/status')).json().data, {
    installed: false,
    running: false,
    logged_in: false,
    hostname: null,
    ip: null,
    tailnet: null,
  })
  for (const action of ['/login', '/logout', '/generate-cert', '/install']) {
    const res = await call('POST', action)
    t.equal(res.statusCode, 503, action)
    t.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
  }
})

t.test('login answers the auth URL while the CLI waits; logout and certificates; vpn.changed', async (t) => {
  const { app, o, call, setState } = await vpnApp(t, 'NeedsLogin', { HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1' })
  const events = recordEvents(app, 'vpn.changed')
  const login = await call('POST', '/login')
  t.equal(login.statusCode, 200)
  t.same(login.json().data, { auth_url: 'https://login.tailscale.com/a/1a2b3c4d5e6f' }, 'answered before the login completes')
  setState('Running')
  const logout = await call('POST', '/logout')
  t.match(logout.json().data, { logged_in: false })
  setState('Running')
  const cert = await call('POST', '/generate-cert')
  t.equal(cert.statusCode, 200)
  t.equal(cert.json().data.domain, 'hearth-nas.tail1234.ts.net', 'the node’s own DNS name by default')
  t.ok(existsSync(cert.json().data.cert_path) && existsSync(cert.json().data.key_path), 'the pair is in the data folder')
  t.match(readFileSync(cert.json().data.cert_path, 'utf8'), /BEGIN CERTIFICATE/)
  const route = await app.inject({
    method: 'POST',
    url: '/api/v1/hal/network/proxy/routes',
    headers: auth(o.token),
    payload: { domain: 'hearth-nas.tail1234.ts.net', target: 'http://127.0.0.1:9', ssl: true },
  })
  t.equal(route.statusCode, 201)
  await call('POST', '/generate-cert')
  const ssl = (await app.inject({ method: 'GET', url: '/api/v1/hal/network/ssl/status', headers: auth(o.token) })).json().data
  t.match(
    ssl[0],
    { domain: 'hearth-nas.tail1234.ts.net', status: 'valid', issuer: 'hearth-nas.tail1234.ts.net' },
    'the pair is handed to the proxy',
  )
  t.equal(
    (await call('POST', '/generate-cert', undefined, { domain: '../../etc/passwd' })).statusCode,
    400,
    'a domain is a host name, never a path',
  )
  t.ok(events.length >= 2, `${events.length} vpn.changed events`)
  t.equal(events[0]?.userId, null, 'an instance event: admins only on the WebSocket')
})

t.test(
  'roles: anyone signed in reads the status (agent keys do not), actions need an admin; install runs the configured command',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-install-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const marker = join(dir, 'installed')
    const { app, o, call } = await vpnApp(t, 'Running', { HEARTH_TAILSCALE_INSTALL_CMD: `touch,${marker}` })
    const member = await addUser(app, o.token)
    const agent = await apiKey(app, o.token, { scope: 'agent' })
    t.equal((await call('GET', '/status', member.token)).statusCode, 200)
    const byAgent = await call('GET', '/status', agent)
    t.equal(byAgent.statusCode, 403, 'agent keys do not reach the VPN')
    t.equal(byAgent.json().error.code, 'INSUFFICIENT_SCOPE')
    for (const action of ['/login', '/logout', '/install', '/generate-cert'])
      t.equal((await call('POST', action, member.token)).statusCode, 403, action)
    const install = await call('POST', '/install')
    t.equal(install.statusCode, 200)
    t.ok(existsSync(marker), 'the configured command ran (argument array, no shell)')
  },
)
