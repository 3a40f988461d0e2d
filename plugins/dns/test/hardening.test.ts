import t from 'tap'
import { startPorkbun } from '../../../drivers/dns-providers/porkbun/test/server.js'
import { addUser, build, owner } from '../../../test/helper.js'
import { fixtures } from './providers.js'
import { dig, dnsApi, freePort, localService } from './support.js'

/**
 * The DNS API as another household member or a careless paste would use it:
 * no zone inside or around another user's, DDNS answers scoped to their owner,
 * no lost update at a read-modify-write provider, nothing accepted that the server cannot serve,
 * one TTL per RRset, TXT taken as written.
 */
const QUIET_CRON = '0 0 1 1 *'
const noTools = async (cmd: string) => ({ code: 127, stdout: '', stderr: `${cmd}: not here` })

t.test('a user cannot create a zone inside or around another user’s zone', async (t) => {
  const app = await build(t, { run: noTools })
  const alice = await owner(app)
  const bob = await addUser(app, alice.token)
  const a = dnsApi(app, alice.token)
  const b = dnsApi(app, bob.token)
  await a.zone('victim.test')
  await a.zone('mail.home.test')

  const child = await b.call('POST', '/zones', { zone: 'ns1.victim.test', mode: 'authoritative' })
  t.equal(child.statusCode, 409, 'a child of another user’s zone → 409')
  t.equal(child.json().error.code, 'CONFLICT')
  const deep = await b.call('POST', '/zones', { zone: 'a.b.victim.test', mode: 'authoritative' })
  t.equal(deep.statusCode, 409, 'a grandchild too')
  const parent = await b.call('POST', '/zones', { zone: 'home.test', mode: 'authoritative' })
  t.equal(parent.statusCode, 409, 'a parent of another user’s zone → 409')
  const proxy = await b.call('POST', '/zones', {
    zone: 'x.victim.test',
    mode: 'proxy',
    provider_account_id: '00000000-0000-4000-8000-000000000000',
  })
  t.equal(proxy.statusCode, 409, 'proxy zones follow the same rule')
  t.equal(
    (await b.call('POST', '/zones', { zone: 'victimtest.test', mode: 'authoritative' })).statusCode,
    201,
    'a mere suffix is no parent',
  )
  t.equal((await b.call('POST', '/zones', { zone: 'otherhome.test', mode: 'authoritative' })).statusCode, 201)

  t.equal(
    (await a.call('POST', '/zones', { zone: 'ns1.victim.test', mode: 'authoritative' })).statusCode,
    201,
    'own nested zones stay allowed',
  )
  t.equal((await a.call('POST', '/zones', { zone: 'home.test', mode: 'authoritative' })).statusCode, 201, 'around one’s own zone too')
})

t.test('DDNS answers show each user only their own zones and errors', async (t) => {
  const ip = await localService('203.0.113.10')
  const sources = [ip, await localService('203.0.113.10')]
  const keys = { apikey: 'pk1_ddns_key_0001', secretapikey: 'sk1_ddns_key_0002' }
  const porkbun = await startPorkbun(keys, { 'secret-shop.example': [{ name: 'home', type: 'A', content: '192.0.2.200', ttl: 600 }] })
  t.teardown(() => Promise.all([...sources.map((s) => s.close()), porkbun.close()]))
  const app = await build(t, {
    env: {
      HEARTH_DNS_PORT: '0',
      HEARTH_PUBLIC_IP_SOURCES: sources.map((s) => s.url).join(','),
      HEARTH_DDNS_CRON: QUIET_CRON,
      HEARTH_PORKBUN_API_URL: porkbun.url,
    },
    run: noTools,
  })
  const alice = await owner(app)
  const bob = await addUser(app, alice.token)
  const a = dnsApi(app, alice.token)
  const b = dnsApi(app, bob.token)

  const aliceZone = await a.zone('alice-home.test')
  const aliceRecord = (await a.record(aliceZone.id, { type: 'A', name: 'vpn', content: '192.0.2.1' })).json().data
  await a.call('PATCH', `/zones/${aliceZone.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [aliceRecord.id] })
  const account = (await a.call('POST', '/provider-accounts', { provider: 'porkbun', label: 'shop', credentials: keys })).json().data
  const shop = (await a.call('POST', '/zones', { zone: 'secret-shop.example', mode: 'proxy', provider_account_id: account.id })).json().data
  const shopRecords = (await a.call('GET', `/zones/${shop.id}/records`)).json().data
  await a.call('PATCH', `/zones/${shop.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [shopRecords[0].id] })
  const bobZone = await b.zone('bob-home.test')
  const bobRecord = (await b.record(bobZone.id, { type: 'A', name: '@', content: '192.0.2.1' })).json().data
  await b.call('PATCH', `/zones/${bobZone.id}/ddns`, { ddns_enabled: true, ddns_record_ids: [bobRecord.id] })

  await porkbun.close() // Alice's provider is down: her zone's error names it
  const check = await b.call('POST', '/ddns/check-now')
  t.equal(check.statusCode, 200, 'any user may ask for a check: the public IP is the instance’s')
  const seen = JSON.stringify(check.json())
  t.same(
    check.json().data.zones_updated.map((z: { zone: string }) => z.zone),
    ['bob-home.test'],
    'check-now lists the caller’s zones only',
  )
  t.equal(check.json().data.error, null, 'another user’s failure is not the caller’s error')
  t.notMatch(seen, /alice-home|secret-shop/, 'no other user’s zone name anywhere in the answer')
  const log = (await b.call('GET', '/ddns/log')).json()
  t.notMatch(JSON.stringify(log), /alice-home|secret-shop/, 'nor in the log')
  t.same(
    log.data[0].zones_updated.map((z: { zone: string }) => z.zone),
    ['bob-home.test'],
  )
  const status = (await b.call('GET', '/ddns/status')).json()
  t.same(
    status.data.zones.map((z: { zone: string }) => z.zone),
    ['bob-home.test'],
    'nor in the status',
  )

  const aliceLog = (await a.call('GET', '/ddns/log')).json().data[0]
  t.same(
    aliceLog.zones_updated.map((z: { zone: string }) => z.zone),
    ['alice-home.test'],
  )
  t.match(aliceLog.error, /^secret-shop\.example: /, 'the owner sees her zone’s error')
})

t.test('concurrent writes to a Namecheap zone lose no record', async (t) => {
  const f = fixtures.find((x) => x.provider === 'namecheap')!
  const fake = await f.start({ 'race.example': [] })
  t.teardown(() => fake.close())
  const app = await build(t, { env: { [f.env]: fake.url }, run: noTools })
  const dns = dnsApi(app, (await owner(app)).token)
  const account = (await dns.call('POST', '/provider-accounts', { provider: 'namecheap', label: 'nc', credentials: f.credentials })).json()
    .data
  const zone = (await dns.call('POST', '/zones', { zone: 'race.example', mode: 'proxy', provider_account_id: account.id })).json().data
  const writes = await Promise.all(
    Array.from({ length: 12 }, (_, i) => dns.record(zone.id, { type: 'A', name: `host${i}`, content: `192.0.2.${i + 1}` })),
  )
  t.same(
    writes.map((w) => w.statusCode),
    Array(12).fill(201),
  )
  const held = (fake.state.records('race.example') ?? []).map((r) => String(r.Name ?? r.name)).sort()
  t.same(held, Array.from({ length: 12 }, (_, i) => `host${i}`).sort(), 'all 12 records are at the provider')
})

t.test('what the API accepts the server serves; one TTL per RRset; TXT as written', async (t) => {
  const port = await freePort()
  const app = await build(t, { env: { HEARTH_DNS_PORT: String(port), HEARTH_DNS_HOST: '127.0.0.1' }, run: noTools })
  const dns = dnsApi(app, (await owner(app)).token)
  const zone = await dns.zone('served.test')

  const caa = await dns.record(zone.id, { type: 'CAA', name: '@', content: '0 averyveryverylongtag "x"' })
  t.equal(caa.statusCode, 400, 'a CAA tag over 15 characters cannot be encoded: refused')
  t.match(caa.json().error.details, { field: 'content', constraint: 'encodable' })
  const mapped = await dns.record(zone.id, { type: 'AAAA', name: 'v4', content: '::FFFF:192.0.2.1' })
  t.equal(mapped.statusCode, 201)
  t.equal(mapped.json().data.content, '::ffff:c000:201', 'an IPv4-mapped address is kept in RFC 5952 form')
  t.same((await dig(port, 'v4.served.test', 'AAAA')).answers, ['v4.served.test. 3600 AAAA ::ffff:192.0.2.1'], 'and served')

  await dns.record(zone.id, { type: 'A', name: 'pool', content: '192.0.2.1', ttl: 300 })
  const second = await dns.record(zone.id, { type: 'A', name: 'pool', content: '192.0.2.2', ttl: 600 })
  t.equal(second.statusCode, 201)
  const pool = await dig(port, 'pool.served.test', 'A')
  t.same(
    pool.answers.map((a) => a.split(' ')[1]),
    ['600', '600'],
    'the TTL written last is the RRset’s',
  )
  const listed = (await dns.call('GET', `/zones/${zone.id}/records`)).json().data.filter((r: { name: string }) => r.name === 'pool')
  t.same(
    listed.map((r: { ttl: number }) => r.ttl),
    [600, 600],
    'and the API says so',
  )

  t.equal((await dns.record(zone.id, { type: 'TXT', name: 'case', content: 'Token-ABC' })).statusCode, 201)
  t.equal((await dns.record(zone.id, { type: 'TXT', name: 'case', content: 'token-abc' })).statusCode, 201, 'TXT data is case-sensitive')
  t.equal(
    (await dns.record(zone.id, { type: 'TXT', name: 'case', content: 'Token-ABC' })).statusCode,
    409,
    'the same text twice is a duplicate',
  )

  const dkim = await dns.record(zone.id, { type: 'TXT', name: 'sel._domainkey', content: '"v=DKIM1; k=rsa; " "p=MIIBIjAN\\"q\\""' })
  t.equal(dkim.statusCode, 201)
  t.equal(dkim.json().data.content, 'v=DKIM1; k=rsa; p=MIIBIjAN"q"', 'quoted strings become the text they spell')
  t.same((await dig(port, 'sel._domainkey.served.test', 'TXT')).answers, [
    'sel._domainkey.served.test. 3600 TXT "v=DKIM1; k=rsa; p=MIIBIjAN\\"q\\""',
  ])
  const long = await dns.record(zone.id, { type: 'TXT', name: 'long', content: 'é'.repeat(200) })
  t.equal(long.statusCode, 201)
  const strings = (await dig(port, 'long.served.test', 'TXT')).answers[0]?.match(/"[^"]*"/g) ?? []
  t.equal(strings.length, 2, '400 bytes of text go out as two character-strings')
  // dig shows each byte over 127 as \DDD: decode, and each string must be whole UTF-8 characters.
  const bytes = (s: string) =>
    Buffer.from(
      s.slice(1, -1).replace(/\\(\d{3})/g, (_, d: string) => String.fromCharCode(Number(d))),
      'latin1',
    )
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  t.same(
    strings.map((s) => utf8.decode(bytes(s))),
    ['é'.repeat(127), 'é'.repeat(73)],
    'cut between characters, never inside one (254 + 146 bytes)',
  )
})
