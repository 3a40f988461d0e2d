import { existsSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { buildApp } from '../../core/app.js'
import { ConfigError } from '../../core/config.js'
import { build, owner } from '../helper.js'
import { listening, requestFrom } from '../net-client.js'

/**
 * X-Forwarded-For is believed only from HEARTH_TRUSTED_PROXIES (by default: loopback when the proxy
 * plugin runs a Caddy on this host, nobody otherwise). Every loopback peer was trusted: a local process
 * rotating the header never met the login throttle.
 */

const failedLogins = async (port: number, from: string, count: number, forwarded: (i: number) => string | undefined) => {
  const statuses: Array<number | string> = []
  for (let i = 0; i < count; i++) {
    const xff = forwarded(i)
    const res = await requestFrom(port, from, 'POST', '/api/v1/auth/login', {
      headers: xff ? { 'x-forwarded-for': xff } : {},
      body: { email: `guess${i}@example.test`, password: 'wrong' },
    })
    statuses.push(res.status)
  }
  return statuses
}

t.test('without a proxy on this host, a rotated X-Forwarded-For still meets the login throttle', async (t) => {
  const app = await build(t, { env: { HEARTH_DISABLED_PLUGINS: 'proxy', HEARTH_LOGIN_FAIL_LIMIT: '2' } })
  const port = await listening(app)
  const statuses = await failedLogins(port, '127.0.0.5', 12, (i) => `198.51.100.${i + 1}`)
  t.same(statuses.slice(0, 10), Array(10).fill(401))
  t.same(statuses.slice(10), [429, 429], 'the peer is the client whatever it claims (was 401 for ever)')
  const metrics = await requestFrom(port, '127.0.0.5', 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } })
  t.equal(metrics.status, 200, 'a local peer claiming to forward for the internet is still local')
})

t.test('with the proxy plugin running, loopback is its Caddy: the forwarded client is the client', async (t) => {
  const app = await build(t, { env: { HEARTH_LOGIN_FAIL_LIMIT: '2' } })
  const o = await owner(app)
  const port = await listening(app)
  // Caddy appends the address it saw: each visitor is counted as itself.
  const visitor = await failedLogins(port, '127.0.0.1', 12, () => 'spoofed, 198.51.100.7')
  t.same(visitor.slice(10), [429, 429], "one visitor's failures count against that visitor")
  const other = await requestFrom(port, '127.0.0.1', 'POST', '/api/v1/auth/login', {
    headers: { 'x-forwarded-for': '198.51.100.8' },
    body: { email: o.email, password: o.password },
  })
  t.equal(other.status, 200, 'not against another visitor behind the same proxy')
  const metrics = await requestFrom(port, '127.0.0.1', 'GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } })
  t.equal(metrics.status, 401, 'a visitor from the internet, through the proxy, is not local')
})

t.test('HEARTH_TRUSTED_PROXIES names the proxies; another local peer is not one', async (t) => {
  const app = await build(t, { env: { HEARTH_TRUSTED_PROXIES: '127.0.0.2, 10.0.0.0/8', HEARTH_LOGIN_FAIL_LIMIT: '2' } })
  const port = await listening(app)
  const rotating = await failedLogins(port, '127.0.0.1', 11, (i) => `198.51.100.${i + 1}`)
  t.equal(rotating[10], 429, 'from 127.0.0.1 the header is ignored')
  const proxied = await failedLogins(port, '127.0.0.2', 11, (i) => `198.51.100.${i + 1}`)
  t.same(proxied, Array(11).fill(401), 'from the named proxy each forwarded client is its own')

  const none = await build(t, { env: { HEARTH_TRUSTED_PROXIES: 'none', HEARTH_LOGIN_FAIL_LIMIT: '2' } })
  const nonePort = await listening(none)
  t.equal((await failedLogins(nonePort, '127.0.0.1', 11, (i) => `198.51.100.${i + 1}`))[10], 429, '`none`: nobody, proxy plugin or not')
})

t.test('a typo in HEARTH_TRUSTED_PROXIES stops the start', async (t) => {
  const dataDir = join(tmpdir(), `hearth-typo-${process.pid}`)
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const started = buildApp({ env: { HEARTH_DATA_DIR: dataDir, HEARTH_TRUSTED_PROXIES: '127.0.0.1,loopbak' } })
  const err = await started.then(
    () => null,
    (e: unknown) => e,
  )
  t.ok(err instanceof ConfigError, 'a configuration error')
  t.match((err as Error).message, /HEARTH_TRUSTED_PROXIES=127\.0\.0\.1,loopbak is invalid: 'loopbak'/)
  t.notOk(existsSync(dataDir), 'nothing is half-started: no data folder')
})
