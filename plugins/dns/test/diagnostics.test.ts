import t from 'tap'
import { build, owner, recordEvents } from '../../../test/helper.js'
import { dnsApi, freePort, localService } from './support.js'

/** verify-ns with real DNS queries to configured resolvers; port53-check and service-subdomain against local services. */
const noTools = async (cmd: string) => ({ code: 127, stdout: '', stderr: `${cmd}: not here` })

t.test('verify-ns: verified, pending, failed', async (t) => {
  const port = await freePort()
  const dead = await freePort()
  const env = { HEARTH_DNS_HOST: '127.0.0.1', HEARTH_DNS_OUTBOUND_TIMEOUT_MS: '500' }
  // This instance is its own resolver: its server answers the zone's NS.
  const app = await build(t, { env: { ...env, HEARTH_DNS_PORT: String(port), HEARTH_DNS_RESOLVERS: `127.0.0.1:${port}` }, run: noTools })
  const dns = dnsApi(app, (await owner(app)).token)
  const events = recordEvents(app, 'dns.zone.updated')
  const zone = await dns.zone('delegated.test')
  const res = await dns.call('POST', `/zones/${zone.id}/verify-ns`)
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json().data, {
    verified: true,
    ns_found: ['ns1.delegated.test'],
    expected_ns: ['ns1.delegated.test'],
    propagation_status: 'verified',
  })
  t.match((await dns.call('GET', `/zones/${zone.id}`)).json().data, { ns_verified: true, propagation_status: 'verified' })
  t.equal(events.length, 1, 'dns.zone.updated on the status change')

  // Another instance asks the first, which does not serve its zone (REFUSED): delegation not there yet.
  const other = await build(t, { env: { ...env, HEARTH_DNS_RESOLVERS: `127.0.0.1:${port}` }, run: noTools })
  const dns2 = dnsApi(other, (await owner(other)).token)
  const pendingZone = await dns2.zone('elsewhere.test')
  t.match((await dns2.call('POST', `/zones/${pendingZone.id}/verify-ns`)).json().data, {
    verified: false,
    ns_found: [],
    propagation_status: 'pending',
  })

  // A resolver that never answers: the check fails.
  const lonely = await build(t, { env: { ...env, HEARTH_DNS_RESOLVERS: `127.0.0.1:${dead}` }, run: noTools })
  const dns3 = dnsApi(lonely, (await owner(lonely)).token)
  const failedZone = await dns3.zone('lonely.test')
  t.match((await dns3.call('POST', `/zones/${failedZone.id}/verify-ns`)).json().data, { verified: false, propagation_status: 'failed' })

  const notAuthoritative = await dns3.call('POST', '/zones/00000000-0000-4000-8000-000000000000/verify-ns')
  t.equal(notAuthoritative.statusCode, 404)
})

t.test('port53-check and service-subdomain through configured services', async (t) => {
  const ipA = await localService('203.0.113.5')
  const ipB = await localService('203.0.113.5')
  const checker = await localService({ udp: true, tcp: false }, 'application/json')
  const subdomain = await localService(
    { subdomain: 'abc.hearth.example', instance_ip: '203.0.113.5', active: true, expiry: '2027-01-01T00:00:00.000Z' },
    'application/json',
  )
  t.teardown(() => Promise.all([ipA, ipB, checker, subdomain].map((s) => s.close())))
  const app = await build(t, {
    env: {
      HEARTH_PUBLIC_IP_SOURCES: `${ipA.url},${ipB.url}`,
      HEARTH_PORT53_CHECKER_URL: `${checker.url}/check`,
      HEARTH_SERVICE_SUBDOMAIN_URL: `${subdomain.url}/subdomain`,
    },
  })
  const dns = dnsApi(app, (await owner(app)).token)
  const check = (await dns.call('GET', '/network/port53-check')).json().data
  t.match(check, { udp: true, tcp: false })
  t.ok(Date.parse(check.checked_at))
  t.equal(checker.hits[0], '/check?port=53&ip=203.0.113.5', 'the checker is told the port and the public IP')
  checker.set('down', 502)
  t.match((await dns.call('GET', '/network/port53-check')).json().data, { udp: null, tcp: null }, 'checker failing → null')

  t.same((await dns.call('GET', '/service-subdomain')).json().data, {
    subdomain: 'abc.hearth.example',
    instance_ip: '203.0.113.5',
    active: true,
    expiry: '2027-01-01T00:00:00.000Z',
  })
  t.equal(subdomain.hits[0], '/subdomain?instance_ip=203.0.113.5')
  subdomain.set('<html>', 500)
  t.equal((await dns.call('GET', '/service-subdomain')).statusCode, 503, 'endpoint down → 503')

  const bare = await build(t)
  const plain = dnsApi(bare, (await owner(bare)).token)
  t.match((await plain.call('GET', '/network/port53-check')).json().data, { udp: null, tcp: null }, 'no checker configured → null')
  t.same(
    (await plain.call('GET', '/service-subdomain')).json().data,
    { subdomain: null, instance_ip: null, active: false, expiry: null },
    'not configured',
  )
})

t.test('the cron jobs: NS polling verifies a new zone by itself, DDNS checks on schedule', async (t) => {
  const port = await freePort()
  const ips = [await localService('203.0.113.44'), await localService('203.0.113.44')]
  t.teardown(() => Promise.all(ips.map((s) => s.close())))
  const app = await build(t, {
    env: {
      HEARTH_DNS_HOST: '127.0.0.1',
      HEARTH_DNS_PORT: String(port),
      HEARTH_DNS_RESOLVERS: `127.0.0.1:${port}`,
      HEARTH_DNS_NS_POLL_CRON: '* * * * * *',
      HEARTH_DDNS_CRON: '* * * * * *',
      HEARTH_PUBLIC_IP_SOURCES: ips.map((s) => s.url).join(','),
    },
    run: noTools,
  })
  const dns = dnsApi(app, (await owner(app)).token)
  const zone = await dns.zone('polled.test')
  t.equal((await dns.call('GET', `/zones/${zone.id}`)).json().data.propagation_status, 'pending', 'pending at creation')
  // Both jobs run every second: wait (at most 5 s) until each has done its work.
  const deadline = Date.now() + 5000
  let status = 'pending'
  let ip: string | null = null
  while ((status === 'pending' || ip === null) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250))
    status = (await dns.call('GET', `/zones/${zone.id}`)).json().data.propagation_status
    ip = (await dns.call('GET', '/ddns/status')).json().data.current_ip
  }
  t.equal(status, 'verified', 'the polling job verified the delegation without a verify-ns call')
  t.equal(ip, '203.0.113.44', 'the DDNS job ran on its schedule')
  t.ok(ips[0]?.hits.length, 'and asked the sources')
})

t.test('verify-ns: other name servers that resolve to this instance’s IP count as delegated', async (t) => {
  const port = await freePort()
  const ips = [await localService('203.0.113.53'), await localService('203.0.113.53')]
  t.teardown(() => Promise.all(ips.map((s) => s.close())))
  // "The internet": a server delegating shared.test to ns.custom.test, which points at 203.0.113.53.
  const world = await build(t, { env: { HEARTH_DNS_HOST: '127.0.0.1', HEARTH_DNS_PORT: String(port) }, run: noTools })
  const w = dnsApi(world, (await owner(world)).token)
  const shared = await w.zone('shared.test')
  const ns = (await w.call('GET', `/zones/${shared.id}/records`)).json().data.find((r: { type: string }) => r.type === 'NS')
  await w.call('PUT', `/zones/${shared.id}/records/${ns.id}`, { type: 'NS', name: '@', content: 'ns.custom.test' })
  const custom = await w.zone('custom.test')
  const glue = (await w.record(custom.id, { type: 'A', name: 'ns', content: '203.0.113.53' })).json().data

  const home = await build(t, {
    env: { HEARTH_DNS_RESOLVERS: `127.0.0.1:${port}`, HEARTH_PUBLIC_IP_SOURCES: ips.map((s) => s.url).join(',') },
    run: noTools,
  })
  const h = dnsApi(home, (await owner(home)).token)
  await h.call('POST', '/ddns/check-now')
  const zone = await h.zone('shared.test')
  t.match((await h.call('POST', `/zones/${zone.id}/verify-ns`)).json().data, {
    verified: true,
    ns_found: ['ns.custom.test'],
    expected_ns: ['ns1.shared.test'],
    expected_ip: '203.0.113.53',
    propagation_status: 'verified',
  })
  await w.call('PUT', `/zones/${custom.id}/records/${glue.id}`, { type: 'A', name: 'ns', content: '198.51.100.1' })
  t.match(
    (await h.call('POST', `/zones/${zone.id}/verify-ns`)).json().data,
    { verified: false, propagation_status: 'pending' },
    'pointing elsewhere: not ours',
  )
})
