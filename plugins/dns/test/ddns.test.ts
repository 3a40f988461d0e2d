import t from 'tap'
import { startPorkbun } from '../../../drivers/dns-providers/porkbun/test/server.js'
import { addUser, build, owner, recordEvents } from '../../../test/helper.js'
import { dig, dnsApi, freePort, localService } from './support.js'

/** DDNS against local plain-text IP sources: majority, record rewrites here and at a provider, log, status, ip-type. */
/** The scheduled check stays out of these tests (it would race check-now): once a year, on 1 January. */
const QUIET_CRON = '0 0 1 1 *'
const noTools = async (cmd: string) => ({ code: 127, stdout: '', stderr: `${cmd}: not here` })

t.test('DDNS follows the public IP the majority of sources see', async (t) => {
  const sources = await Promise.all([localService('203.0.113.10\n'), localService('203.0.113.10'), localService('203.0.113.10')])
  const keys = { apikey: 'pk1_ddns_key_0001', secretapikey: 'sk1_ddns_key_0002' }
  const porkbun = await startPorkbun(keys, { 'away.example': [{ name: 'home', type: 'A', content: '192.0.2.200', ttl: 600 }] })
  t.teardown(() => Promise.all([...sources.map((s) => s.close()), porkbun.close()]))
  const port = await freePort()
  const app = await build(t, {
    env: {
      HEARTH_DNS_PORT: String(port),
      HEARTH_DNS_HOST: '127.0.0.1',
      HEARTH_PUBLIC_IP_SOURCES: sources.map((s) => s.url).join(','),
      HEARTH_DDNS_CRON: QUIET_CRON,
      HEARTH_PORKBUN_API_URL: porkbun.url,
    },
    run: noTools,
  })
  const dns = dnsApi(app, (await owner(app)).token)
  const events = recordEvents(app, 'dns.record.updated')

  const zone = await dns.zone('home.test')
  const apex = (await dns.record(zone.id, { type: 'A', name: '@', content: '192.0.2.1', ttl: 60 })).json().data
  await dns.record(zone.id, { type: 'A', name: 'vpn', content: '192.0.2.1', ttl: 60 })
  const txt = (await dns.record(zone.id, { type: 'TXT', name: '@', content: 'x' })).json().data
  t.equal(
    (await dns.call('PATCH', `/zones/${zone.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [txt.id] })).statusCode,
    422,
    'only A/AAAA records can follow the IP',
  )
  t.equal(
    (await dns.call('PATCH', `/zones/${zone.id}/ddns`, { ddns_enabled: true, ddns_record_ids: ['nope'] })).statusCode,
    422,
    'unknown record → 422',
  )
  const patched = await dns.call('PATCH', `/zones/${zone.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [apex.id] })
  t.match(patched.json().data, { ddns_enabled: true, ddns_record_ids: [apex.id] })

  const account = (await dns.call('POST', '/provider-accounts', { provider: 'porkbun', label: 'pb', credentials: keys })).json().data
  const away = (await dns.call('POST', '/zones', { zone: 'away.example', mode: 'proxy', provider_account_id: account.id })).json().data
  const awayHome = (await dns.call('GET', `/zones/${away.id}/records`)).json().data[0]
  await dns.call('PATCH', `/zones/${away.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [awayHome.id] })

  const first = (await dns.call('POST', '/ddns/check-now')).json().data
  t.match(first, { ip: '203.0.113.10', previous_ip: null, changed: true, error: null })
  t.same(first.zones_updated.map((z: { zone: string; records: string[] }) => [z.zone, z.records]).sort(), [
    ['away.example', [awayHome.id]],
    ['home.test', [apex.id]],
  ])
  t.same((await dig(port, 'home.test', 'A')).answers, ['home.test. 60 A 203.0.113.10'], 'dig answers the new IP')
  t.same((await dig(port, 'vpn.home.test', 'A')).answers, ['vpn.home.test. 60 A 192.0.2.1'], 'records not marked stay')
  t.ok(JSON.stringify(porkbun.state.records('away.example')).includes('203.0.113.10'), 'the provider record was rewritten')
  t.ok(
    sources.every((s) => s.hits.length === 1),
    'every source asked once',
  )

  t.match((await dns.call('POST', '/ddns/check-now')).json().data, { changed: false, ip: '203.0.113.10' }, 'same IP: nothing to do')
  const glued = await dns.zone('glue.test')
  t.same(
    (await dig(port, 'ns1.glue.test', 'A')).answers,
    ['ns1.glue.test. 3600 A 203.0.113.10'],
    'a new zone gets glue for ns1 at the known IP',
  )
  t.match((await dns.call('GET', `/zones/${glued.id}`)).json().data, { ddns_enabled: false, records_count: 3 })

  sources[0]?.set('198.51.100.77')
  sources[1]?.set('198.51.100.77')
  const second = (await dns.call('POST', '/ddns/check-now')).json().data
  t.match(second, { ip: '198.51.100.77', previous_ip: '203.0.113.10', changed: true }, 'two of three win')
  for (const tcp of [false, true])
    t.same((await dig(port, 'home.test', 'A', { tcp })).answers, ['home.test. 60 A 198.51.100.77'], 'no stale answer')

  sources[1]?.set('192.0.2.99')
  sources[2]?.set('not an ip', 500)
  const split = (await dns.call('POST', '/ddns/check-now')).json().data
  t.match(split, { ip: null, changed: false }, 'no majority: no change')
  t.match(split.error, /No majority/)
  t.same((await dig(port, 'home.test', 'A')).answers, ['home.test. 60 A 198.51.100.77'])

  const log = (await dns.call('GET', '/ddns/log?limit=1')).json()
  t.equal(log.data.length, 1)
  t.match(log.data[0], { previous_ip: '203.0.113.10', new_ip: '198.51.100.77', error: null })
  t.equal((await dns.call('GET', '/ddns/log')).json().data.length, 2, 'two changes logged')
  t.equal((await dns.call('GET', '/ddns/log?limit=0')).statusCode, 400, 'limit is checked')
  const status = (await dns.call('GET', '/ddns/status')).json().data
  t.match(status, { enabled: true, current_ip: '198.51.100.77' })
  t.ok(status.last_check_at >= status.last_change_at, 'the failed check is the last check')
  t.ok(status.next_check_at, 'next scheduled check')
  t.same(
    status.zones.map((z: { zone: string }) => z.zone),
    ['away.example', 'home.test'],
  )
  t.equal(events.filter((e) => e.id === apex.id).length, 2, 'dns.record.updated for each rewrite')

  const publicIp = await dns.call('GET', '/network/public-ip')
  t.equal(publicIp.statusCode, 503, 'no majority for public-ip either')
  sources[2]?.set('198.51.100.77')
  t.same((await dns.call('GET', '/network/public-ip')).json().data, { ip: '198.51.100.77' })
})

t.test('ip-type over 30 days of history, on an injected clock', async (t) => {
  const source = [await localService('203.0.113.1'), await localService('203.0.113.1')]
  t.teardown(() => Promise.all(source.map((s) => s.close())))
  let clock = Date.parse('2026-01-01T00:00:00Z')
  const app = await build(t, {
    env: { HEARTH_PUBLIC_IP_SOURCES: source.map((s) => s.url).join(','), HEARTH_DDNS_CRON: QUIET_CRON },
    now: () => clock,
  })
  const dns = dnsApi(app, (await owner(app)).token)
  const ipType = async () => (await dns.call('GET', '/network/ip-type')).json().data
  t.same(await ipType(), { type: 'unknown', changes: 0, window_days: 30 }, 'no history')
  await dns.call('POST', '/ddns/check-now')
  t.equal((await ipType()).type, 'unknown', 'an hour of history is not enough')
  clock += 2 * 86400_000
  await dns.call('POST', '/ddns/check-now')
  t.same(await ipType(), { type: 'static', changes: 0, window_days: 30 }, 'two days, one IP')
  for (const s of source) s.set('203.0.113.2')
  clock += 86400_000
  await dns.call('POST', '/ddns/check-now')
  t.same(await ipType(), { type: 'dynamic', changes: 1, window_days: 30 })
  clock += 31 * 86400_000
  await dns.call('POST', '/ddns/check-now')
  t.same(await ipType(), { type: 'unknown', changes: 0, window_days: 30 }, 'the change left the window; fresh history too short')
})

t.test('each user sees only their own zones in the DDNS status and log', async (t) => {
  const sources = [await localService('203.0.113.60'), await localService('203.0.113.60')]
  t.teardown(() => Promise.all(sources.map((s) => s.close())))
  const app = await build(t, { env: { HEARTH_PUBLIC_IP_SOURCES: sources.map((s) => s.url).join(','), HEARTH_DDNS_CRON: QUIET_CRON } })
  const first = await owner(app)
  const second = await addUser(app, first.token)
  const mark = async (dns: ReturnType<typeof dnsApi>, name: string) => {
    const zone = await dns.zone(name)
    const a = (await dns.record(zone.id, { type: 'A', name: '@', content: '192.0.2.1' })).json().data
    await dns.call('PATCH', `/zones/${zone.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [a.id] })
    return zone
  }
  const a = dnsApi(app, first.token)
  const b = dnsApi(app, second.token)
  const zoneA = await mark(a, 'first.test')
  const zoneB = await mark(b, 'second.test')
  t.equal((await b.record(zoneA.id, { type: 'A', name: 'x', content: '192.0.2.2' })).statusCode, 404, 'no writing into another user’s zone')
  t.equal((await b.call('PATCH', `/zones/${zoneA.id}/ddns`, { ddns_enabled: false })).statusCode, 404)
  t.equal(
    (await b.call('POST', '/zones', { zone: 'first.test', mode: 'authoritative' })).statusCode,
    409,
    'zone names are unique across users',
  )
  await a.call('POST', '/ddns/check-now')
  const logA = (await a.call('GET', '/ddns/log')).json().data[0]
  const logB = (await b.call('GET', '/ddns/log')).json().data[0]
  t.same(
    logA.zones_updated.map((z: { zone_id: string }) => z.zone_id),
    [zoneA.id],
  )
  t.same(
    logB.zones_updated.map((z: { zone_id: string }) => z.zone_id),
    [zoneB.id],
  )
  t.same(
    (await b.call('GET', '/ddns/status')).json().data.zones.map((z: { id: string }) => z.id),
    [zoneB.id],
  )
})

t.test('a DDNS record changed into another type stops following the IP', async (t) => {
  const app = await build(t)
  const dns = dnsApi(app, (await owner(app)).token)
  const zone = await dns.zone('retype.test')
  const a = (await dns.record(zone.id, { type: 'A', name: 'home', content: '192.0.2.1' })).json().data
  await dns.call('PATCH', `/zones/${zone.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [a.id] })
  await dns.call('PUT', `/zones/${zone.id}/records/${a.id}`, { type: 'A', name: 'home', content: '192.0.2.2' })
  t.same((await dns.call('GET', `/zones/${zone.id}`)).json().data.ddns_record_ids, [a.id], 'an A update keeps the mark')
  await dns.call('PUT', `/zones/${zone.id}/records/${a.id}`, { type: 'TXT', name: 'home', content: 'now text' })
  t.same((await dns.call('GET', `/zones/${zone.id}`)).json().data.ddns_record_ids, [], 'a TXT does not')
})
