import t from 'tap'
import { addUser, apiKey, auth, build, owner, recordEvents } from '../../../test/helper.js'

t.test('authoritative zones: create, list, get, duplicate, delete with cascade', async (t) => {
  const app = await build(t)
  const { token, userId } = await owner(app)
  const events = recordEvents(app, 'dns.*')
  const create = (zone: string, extra: object = {}) =>
    app.inject({ method: 'POST', url: '/api/v1/dns/zones', headers: auth(token), payload: { zone, mode: 'authoritative', ...extra } })

  const res = await create('Example.COM.')
  t.equal(res.statusCode, 201, res.body)
  const zone = res.json().data
  t.match(zone, {
    zone: 'example.com',
    mode: 'authoritative',
    provider_account_id: null,
    ns_verified: false,
    propagation_status: 'pending',
    ddns_enabled: false,
    records_count: 2,
  })

  const records = (await app.inject({ method: 'GET', url: `/api/v1/dns/zones/${zone.id}/records`, headers: auth(token) })).json()
  t.same(records.data.map((r: { type: string }) => r.type).sort(), ['NS', 'SOA'], 'SOA and NS made on creation')
  t.match(
    records.data.find((r: { type: string }) => r.type === 'SOA').content,
    /^ns1\.example\.com hostmaster\.example\.com \d+ 3600 600 1209600 300$/,
  )
  t.match(records.meta, { total: 2 })

  t.equal((await create('example.com')).statusCode, 409, 'duplicate → 409')
  t.equal((await create('EXAMPLE.com')).json().error.code, 'CONFLICT', 'duplicate after lower-casing → 409')
  for (const bad of ['nodot', '-bad.com', 'a..b.com', 'exa mple.com', 'x.123']) {
    const r = await create(bad)
    t.equal(r.statusCode, 400, `${bad} refused`)
    t.same(r.json().error.details, { field: 'zone', constraint: 'domain' })
  }
  const proxyWithout = await app.inject({
    method: 'POST',
    url: '/api/v1/dns/zones',
    headers: auth(token),
    payload: { zone: 'p.com', mode: 'proxy' },
  })
  t.same(proxyWithout.json().error.details, { field: 'provider_account_id', constraint: 'required' })
  t.equal((await create('extra.com', { colour: 'red' })).statusCode, 400, 'unknown field → 400')

  const list = (await app.inject({ method: 'GET', url: '/api/v1/dns/zones', headers: auth(token) })).json()
  t.equal(list.data.length, 1)
  t.equal(list.meta.total, 1)

  const other = await addUser(app, token)
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/dns/zones/${zone.id}`, headers: auth(other.token) })).statusCode,
    404,
    'another user cannot see it',
  )
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/dns/zones', headers: auth(other.token) })).json().data.length, 0)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/dns/zones/${zone.id}`, headers: auth(other.token) })).statusCode, 404)

  const sync = await app.inject({ method: 'POST', url: `/api/v1/dns/zones/${zone.id}/sync`, headers: auth(token) })
  t.equal(sync.statusCode, 422, 'sync of an authoritative zone → 422')
  t.equal(sync.json().error.code, 'UNPROCESSABLE')

  const del = await app.inject({ method: 'DELETE', url: `/api/v1/dns/zones/${zone.id}`, headers: auth(token) })
  t.equal(del.statusCode, 200)
  t.same(del.json().data, { id: zone.id, deleted: true })
  t.equal((await app.inject({ method: 'GET', url: `/api/v1/dns/zones/${zone.id}/records`, headers: auth(token) })).statusCode, 404)
  const left = app.hearth.db.prepare('SELECT COUNT(*) AS n FROM dns_records WHERE zone_id = ?').get(zone.id) as { n: number }
  t.equal(left.n, 0, 'records cascaded')
  t.same(
    events.map((e) => e.type),
    ['dns.zone.created', 'dns.zone.deleted'],
  )
  t.match(events, [
    { userId, id: zone.id, data: { zone: 'example.com', records_count: 2 } },
    { userId, id: zone.id, data: { id: zone.id, zone: 'example.com' } },
  ])
})

t.test('API keys: agent keys read DNS, sync keys do not reach it', async (t) => {
  const app = await build(t)
  const { token } = await owner(app)
  const zone = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/dns/zones',
      headers: auth(token),
      payload: { zone: 'keys.test', mode: 'authoritative' },
    })
  ).json().data
  const agent = await apiKey(app, token, { scope: 'agent' })
  const sync = await apiKey(app, token, { scope: 'sync' })
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/dns/zones/${zone.id}/records`, headers: auth(agent) })).statusCode,
    200,
    'agent reads',
  )
  const write = await app.inject({
    method: 'POST',
    url: `/api/v1/dns/zones/${zone.id}/records`,
    headers: auth(agent),
    payload: { type: 'A', name: 'a', content: '192.0.2.1' },
  })
  t.equal(write.statusCode, 403, 'agent cannot write')
  t.equal(write.json().error.code, 'INSUFFICIENT_SCOPE')
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/dns/zones', headers: auth(sync) })).statusCode,
    403,
    'sync keys are for records only',
  )
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/dns/zones' })).statusCode, 401, 'no token → 401')
})

t.test('configured name servers go into new zones (NS and SOA mname)', async (t) => {
  const app = await build(t, { env: { HEARTH_DNS_NAMESERVERS: 'NS1.Example.NET.,ns2.example.net' } })
  const { token } = await owner(app)
  const zone = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/dns/zones',
      headers: auth(token),
      payload: { zone: 'named.test', mode: 'authoritative' },
    })
  ).json().data
  const records = (await app.inject({ method: 'GET', url: `/api/v1/dns/zones/${zone.id}/records`, headers: auth(token) })).json().data
  t.same(
    records
      .filter((r: { type: string }) => r.type === 'NS')
      .map((r: { content: string }) => r.content)
      .sort(),
    ['ns1.example.net', 'ns2.example.net'],
  )
  t.match(records.find((r: { type: string }) => r.type === 'SOA').content, /^ns1\.example\.net hostmaster\.named\.test \d+ /)
})
