import t from 'tap'
import { ToolMissingError } from '../../../core/plugin-api.js'
import type { FirewallDriver, FirewallPort } from '../../../drivers/firewall/index.js'
import { build, owner } from '../../../test/helper.js'
import { dig, dnsApi, freePort } from './support.js'

/**
 * The API and the built-in server together, checked with the real `dig`
 * over UDP and TCP: every record type answers, updates and deletes leave no
 * stale answer, the serial grows, and port 53's firewall rule follows the zones.
 * nft is reported missing so the no-op firewall records what would be opened.
 */
const noNft = async (cmd: string): Promise<never> => {
  throw new ToolMissingError(cmd)
}

t.test('records through the API are answered by dig at once', async (t) => {
  const port = await freePort()
  const app = await build(t, { env: { HEARTH_DNS_PORT: String(port), HEARTH_DNS_HOST: '127.0.0.1' }, run: noNft })
  const dns = dnsApi(app, (await owner(app)).token)
  const openPorts = () => app.hearth.hal.with<FirewallDriver, FirewallPort[]>('firewall', (d) => d.list())
  t.same(await openPorts(), [], 'nothing opened before the first authoritative zone')

  const zone = await dns.zone('example.test')
  t.same(
    await openPorts(),
    [
      { port, proto: 'tcp' },
      { port, proto: 'udp' },
    ],
    'first authoritative zone opened the DNS port',
  )
  const health = (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.dns
  t.equal(health.status, 'ok', 'health: dns ok')

  const soaSerial = async () => Number((await dig(port, 'example.test', 'SOA')).answers[0]?.split(' ')[5])
  const serial0 = await soaSerial()
  t.ok(serial0 > 0, 'SOA answered')
  const ns = await dig(port, 'example.test', 'NS')
  t.same(ns.answers, ['example.test. 3600 NS ns1.example.test.'])
  t.ok(ns.aa, 'AA flag')

  const samples: Array<[object, string, string]> = [
    [{ type: 'A', name: 'www', content: '192.0.2.10', ttl: 300 }, 'A', 'www.example.test. 300 A 192.0.2.10'],
    [{ type: 'AAAA', name: 'www', content: '2001:db8::10', ttl: 300 }, 'AAAA', 'www.example.test. 300 AAAA 2001:db8::10'],
    [{ type: 'CNAME', name: 'blog', content: 'www.example.test', ttl: 300 }, 'CNAME', 'blog.example.test. 300 CNAME www.example.test.'],
    [{ type: 'MX', name: '@', content: 'mail.example.test', priority: 10, ttl: 300 }, 'MX', 'example.test. 300 MX 10 mail.example.test.'],
    [{ type: 'TXT', name: '@', content: 'v=spf1 mx -all', ttl: 300 }, 'TXT', 'example.test. 300 TXT "v=spf1 mx -all"'],
    [
      { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.example.test', priority: 10, ttl: 300 },
      'SRV',
      '_sip._tcp.example.test. 300 SRV 10 5 5060 sip.example.test.',
    ],
    [{ type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"', ttl: 300 }, 'CAA', 'example.test. 300 CAA 0 issue "letsencrypt.org"'],
    [{ type: 'NS', name: 'lab', content: 'ns1.other.test', ttl: 300 }, 'NS', 'lab.example.test. 300 NS ns1.other.test.'],
  ]
  for (const [body, type, line] of samples) {
    const res = await dns.record(zone.id, body)
    t.equal(res.statusCode, 201, res.body)
    const name = line.split(' ')[0] as string
    for (const tcp of [false, true]) {
      const answer = await dig(port, name, type, { tcp })
      if (type === 'NS' && name.startsWith('lab'))
        t.ok([...answer.answers, ...answer.authority].includes(line), `${type} ${tcp ? 'TCP' : 'UDP'}: delegation`)
      else t.ok(answer.answers.includes(line), `${type} over ${tcp ? 'TCP' : 'UDP'}: ${answer.answers.join(' | ')}`)
    }
  }
  const serial1 = await soaSerial()
  t.ok(serial1 > serial0, 'serial bumped by the changes')

  const www = (await dns.call('GET', `/zones/${zone.id}/records`))
    .json()
    .data.find((r: { type: string; name: string }) => r.type === 'A' && r.name === 'www')
  await dns.call('PUT', `/zones/${zone.id}/records/${www.id}`, { type: 'A', name: 'www', content: '192.0.2.99', ttl: 60 })
  for (const tcp of [false, true])
    t.same(
      (await dig(port, 'www.example.test', 'A', { tcp })).answers,
      ['www.example.test. 60 A 192.0.2.99'],
      `updated, no stale answer (${tcp ? 'TCP' : 'UDP'})`,
    )
  t.ok((await soaSerial()) > serial1, 'serial bumped by the update')

  await dns.call('DELETE', `/zones/${zone.id}/records/${www.id}`)
  const gone = await dig(port, 'www.example.test', 'A')
  t.equal(gone.status, 'NOERROR', 'www still has its AAAA: NODATA')
  t.same(gone.answers, [])
  const v6 = (await dns.call('GET', `/zones/${zone.id}/records`)).json().data.find((r: { type: string }) => r.type === 'AAAA')
  await dns.call('DELETE', `/zones/${zone.id}/records/${v6.id}`)
  const nx = await dig(port, 'www.example.test', 'A')
  t.equal(nx.status, 'NXDOMAIN', 'deleted name → NXDOMAIN')
  t.match(nx.authority[0], /^example\.test\. \d+ SOA ns1\.example\.test\. hostmaster\.example\.test\. /, 'SOA in authority')

  t.equal((await dig(port, 'outside.example', 'A')).status, 'REFUSED', 'outside every zone → REFUSED')
  await dns.call('DELETE', `/zones/${zone.id}`)
  t.equal((await dig(port, 'example.test', 'SOA')).status, 'REFUSED', 'deleted zone → REFUSED')
  t.same(await openPorts(), [], 'last authoritative zone deleted: port closed')
})

t.test('a DNS port that cannot be bound: HTTP keeps serving, health says unavailable', async (t) => {
  const port = await freePort()
  const first = await build(t, { env: { HEARTH_DNS_PORT: String(port), HEARTH_DNS_HOST: '127.0.0.1' }, run: noNft })
  const second = await build(t, { env: { HEARTH_DNS_PORT: String(port), HEARTH_DNS_HOST: '127.0.0.1' }, run: noNft })
  t.equal((await first.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.dns.status, 'ok')
  const dnsHealth = (await second.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.dns
  t.equal(dnsHealth.status, 'unavailable')
  t.match(dnsHealth.message, /in use/)
  const { token } = await owner(second)
  t.equal(
    (await dnsApi(second, token).call('POST', '/zones', { zone: 'still.works', mode: 'authoritative' })).statusCode,
    201,
    'the API still works',
  )
  const disabled = await build(t, { run: noNft })
  t.equal(
    (await disabled.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.dns.status,
    'disabled',
    'port 0 → disabled',
  )
})

t.test('zones come back from the database after a restart', async (t) => {
  const { mkdtempSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-dns-restart-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const port = await freePort()
  const env = { HEARTH_DNS_PORT: String(port), HEARTH_DNS_HOST: '127.0.0.1' }
  const first = await build(t, { env, run: noNft, dataDir })
  const dns = dnsApi(first, (await owner(first)).token)
  const zone = await dns.zone('persist.test')
  await dns.record(zone.id, { type: 'A', name: 'www', content: '192.0.2.7', ttl: 120 })
  const serial = (await dig(port, 'persist.test', 'SOA')).answers[0]?.split(' ')[5]
  await first.close()
  t.equal(
    (await dig(port, 'www.persist.test', 'A').catch(() => ({ status: 'DOWN' }))).status !== 'NOERROR',
    true,
    'server stopped with the app',
  )

  const second = await build(t, { env, run: noNft, dataDir })
  t.same((await dig(port, 'www.persist.test', 'A')).answers, ['www.persist.test. 120 A 192.0.2.7'], 'answered again after restart')
  t.equal((await dig(port, 'persist.test', 'SOA')).answers[0]?.split(' ')[5], serial, 'same serial')
  await second.close()
})
