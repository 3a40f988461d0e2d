import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ToolMissingError } from '../../../core/plugin-api.js'
import { apiKey, auth, build, owner } from '../../../test/helper.js'
import { sourcePath } from '../../../test/paths.js'

/** GET /network/interfaces and /network/connectivity through the HTTP API. */

const capture = readFileSync(sourcePath(import.meta.url, '../../../drivers/network/linux/test/fixtures/ip-address-show.json'), 'utf8')

/** A sysfs tree: eth0, eth1 and wlan0 are hardware, wlan0 is wireless, eth0 runs at 1000 Mb/s. */
function sysfs(t: { teardown(fn: () => void): void }): string {
  const root = mkdtempSync(join(tmpdir(), 'hearth-sysfs-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const [name, files] of Object.entries({
    eth0: { device: '', speed: '1000\n' },
    eth1: { device: '' },
    wlan0: { device: '', wireless: '' },
    br0: {},
    lo: { speed: '-1\n' },
  })) {
    mkdirSync(join(root, name), { recursive: true })
    for (const [file, content] of Object.entries(files)) {
      if (file === 'device' || file === 'wireless') mkdirSync(join(root, name, file))
      else writeFileSync(join(root, name, file), content)
    }
  }
  return root
}

const replay = async (cmd: string, args: readonly string[]) => {
  if (cmd === 'ip' && args.includes('address')) return { code: 0, stdout: capture, stderr: '' }
  if (cmd === 'ip') return { code: 0, stdout: '[]', stderr: '' }
  throw new ToolMissingError(cmd)
}

t.test('interfaces carry the documented fields, virtual ones marked', async (t) => {
  const app = await build(t, { run: replay, env: { HEARTH_NETWORK_SYSFS: sysfs(t) } })
  const o = await owner(app)
  const res = await app.inject({
    method: 'GET',
    url: '/api/v1/network/interfaces',
    headers: auth(await apiKey(app, o.token, { scope: 'agent' })),
  })
  t.equal(res.statusCode, 200, 'agent keys may read the network')
  const byName = Object.fromEntries(res.json().data.map((i: { name: string }) => [i.name, i]))
  t.same(byName.lo, {
    name: 'lo',
    mac: null,
    ipv4: '127.0.0.1',
    ipv6: '::1',
    type: 'loopback',
    status: 'unknown',
    speed_mbps: null,
    virtual: true,
  })
  t.match(byName.eth0, { type: 'ethernet', status: 'up', speed_mbps: 1000, virtual: false, mac: '02:fc:00:00:00:01', ipv4: '192.0.2.2' })
  t.match(byName.eth1, { type: 'ethernet', status: 'down', speed_mbps: null, virtual: false, ipv4: null })
  t.match(byName.wlan0, { type: 'wifi', virtual: false, ipv6: 'fe80::a683:e7ff:fe12:3456' })
  t.match(byName.br0, { type: 'bridge', virtual: true, ipv6: '2001:db8:1::1' }, 'a global IPv6 address before the link-local one')
  t.match(byName.tailscale0, { type: 'tunnel', virtual: true, ipv4: '100.101.102.103', mac: null })
  t.match(byName.ifb0, { type: 'virtual', virtual: true, status: 'down' })
  t.same(res.json().meta, { total: 8, limit: 8, offset: 0 }, 'the list envelope')
})

t.test('interfaces of this machine, read with the real ip and sysfs', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const res = await app.inject({ method: 'GET', url: '/api/v1/network/interfaces', headers: auth(o.token) })
  t.equal(res.statusCode, 200)
  const lo = res.json().data.find((i: { name: string }) => i.name === 'lo')
  t.match(lo, { type: 'loopback', ipv4: '127.0.0.1', virtual: true })
})

t.test('no ip tool: 503 with the reason, never a 500', async (t) => {
  const app = await build(t, { run: async (cmd) => Promise.reject(new ToolMissingError(cmd)) })
  const o = await owner(app)
  const res = await app.inject({ method: 'GET', url: '/api/v1/network/interfaces', headers: auth(o.token) })
  t.equal(res.statusCode, 503)
  t.equal(res.json().error.code, 'SERVICE_UNAVAILABLE')
})

t.test('connectivity: online with the fastest latency, offline when nothing answers, cached briefly', async (t) => {
  const server = createServer((_req, res) => res.writeHead(204).end())
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  const up = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
  const closed = 'http://127.0.0.1:1/'

  const online = await build(t, { env: { HEARTH_CONNECTIVITY_TARGETS: `${closed},${up}` } })
  const o = await owner(online)
  const first = await online.inject({ method: 'GET', url: '/api/v1/network/connectivity', headers: auth(o.token) })
  t.equal(first.statusCode, 200)
  t.match(first.json().data, { online: true, latency_ms: Number })
  t.ok(!Number.isNaN(Date.parse(first.json().data.checked_at)))
  const again = await online.inject({ method: 'GET', url: '/api/v1/network/connectivity', headers: auth(o.token) })
  t.equal(again.json().data.checked_at, first.json().data.checked_at, 'served from the cache within its time')

  const offline = await build(t, { env: { HEARTH_CONNECTIVITY_TARGETS: closed, HEARTH_CONNECTIVITY_CACHE_MS: '0' } })
  const p = await owner(offline)
  const res = await offline.inject({ method: 'GET', url: '/api/v1/network/connectivity', headers: auth(p.token) })
  t.same({ ...res.json().data, checked_at: 'x' }, { online: false, latency_ms: null, checked_at: 'x' })
  t.equal((await offline.inject({ method: 'GET', url: '/api/v1/network/connectivity' })).statusCode, 401, 'signed-in users only')
})
