import t from 'tap'
import { build, owner, recordEvents } from '../../../test/helper.js'
import { dnsApi } from './support.js'

/** The spec's validation table, row by row, then PUT, DELETE, the CNAME rule and duplicates. */
type Case = { body: Record<string, unknown>; status: number; details?: { field: string; constraint: string }; content?: string }

const table: Record<string, Case[]> = {
  A: [
    { body: { type: 'A', name: 'a', content: '192.0.2.1' }, status: 201 },
    { body: { type: 'A', name: 'a2', content: '256.0.0.1' }, status: 400, details: { field: 'content', constraint: 'ipv4' } },
    { body: { type: 'A', name: 'a3', content: '2001:db8::1' }, status: 400, details: { field: 'content', constraint: 'ipv4' } },
  ],
  AAAA: [
    { body: { type: 'AAAA', name: 'v6', content: '2001:DB8::1' }, status: 201, content: '2001:db8::1' },
    { body: { type: 'AAAA', name: 'v6b', content: '192.0.2.1' }, status: 400, details: { field: 'content', constraint: 'ipv6' } },
  ],
  CNAME: [
    { body: { type: 'CNAME', name: 'alias', content: 'Target.Example.NET.' }, status: 201, content: 'target.example.net' },
    { body: { type: 'CNAME', name: 'alias2', content: 'not a host' }, status: 400, details: { field: 'content', constraint: 'hostname' } },
  ],
  NS: [
    { body: { type: 'NS', name: 'lab', content: 'ns1.other.net' }, status: 201 },
    { body: { type: 'NS', name: 'lab2', content: 'ns_!.other.net' }, status: 400, details: { field: 'content', constraint: 'hostname' } },
  ],
  MX: [
    { body: { type: 'MX', name: '@', content: 'mail.example.com', priority: 10 }, status: 201 },
    { body: { type: 'MX', name: '@', content: 'mx0.example.com', priority: 0 }, status: 201 },
    { body: { type: 'MX', name: '@', content: 'mx9.example.com', priority: 65535 }, status: 201 },
    { body: { type: 'MX', name: '@', content: 'mx2.example.com' }, status: 400, details: { field: 'priority', constraint: 'required' } },
    {
      body: { type: 'MX', name: '@', content: 'mx3.example.com', priority: 65536 },
      status: 400,
      details: { field: 'priority', constraint: 'maximum' },
    },
    {
      body: { type: 'MX', name: '@', content: 'mx4.example.com', priority: -1 },
      status: 400,
      details: { field: 'priority', constraint: 'minimum' },
    },
    {
      body: { type: 'MX', name: '@', content: '10 mx5.example.com', priority: 5 },
      status: 400,
      details: { field: 'content', constraint: 'hostname' },
    },
  ],
  SRV: [
    { body: { type: 'SRV', name: '_sip._tcp', content: '5 5060 sip.example.com', priority: 10 }, status: 201 },
    {
      body: { type: 'SRV', name: '_xmpp._tcp', content: '5 5222 xmpp.example.com' },
      status: 400,
      details: { field: 'priority', constraint: 'required' },
    },
    {
      body: { type: 'SRV', name: '_x._tcp', content: 'sip.example.com', priority: 1 },
      status: 400,
      details: { field: 'content', constraint: 'srv_format' },
    },
  ],
  CAA: [
    { body: { type: 'CAA', name: '@', content: '0 issue "letsencrypt.org"' }, status: 201 },
    {
      body: { type: 'CAA', name: '@', content: '128 iodef mailto:sec@example.com' },
      status: 201,
      content: '128 iodef "mailto:sec@example.com"',
    },
    {
      body: { type: 'CAA', name: '@', content: 'issue letsencrypt.org' },
      status: 400,
      details: { field: 'content', constraint: 'caa_format' },
    },
    {
      body: { type: 'CAA', name: '@', content: '256 issue "x.org"' },
      status: 400,
      details: { field: 'content', constraint: 'caa_format' },
    },
  ],
  TXT: [
    { body: { type: 'TXT', name: '@', content: 'v=spf1 -all' }, status: 201 },
    {
      body: { type: 'TXT', name: 'any', content: '  any content, "quotes", ünïcode; even = signs  ' },
      status: 201,
      content: '  any content, "quotes", ünïcode; even = signs  ',
    },
  ],
  ttl: [
    { body: { type: 'A', name: 't1', content: '192.0.2.9', ttl: 1 }, status: 201 },
    { body: { type: 'A', name: 't2', content: '192.0.2.9', ttl: 86400 }, status: 201 },
    { body: { type: 'A', name: 't3', content: '192.0.2.9', ttl: 0 }, status: 400, details: { field: 'ttl', constraint: 'minimum' } },
    { body: { type: 'A', name: 't4', content: '192.0.2.9', ttl: 86401 }, status: 400, details: { field: 'ttl', constraint: 'maximum' } },
    { body: { type: 'A', name: 't5', content: '192.0.2.9', ttl: '300' }, status: 400, details: { field: 'ttl', constraint: 'type' } },
  ],
  other: [
    { body: { type: 'SPF', name: 'x', content: 'v=spf1' }, status: 400, details: { field: 'type', constraint: 'enum' } },
    { body: { type: 'A', name: 'bad name!', content: '192.0.2.1' }, status: 400, details: { field: 'name', constraint: 'hostname' } },
    {
      body: { type: 'A', name: 'p', content: '192.0.2.1', priority: 3 },
      status: 400,
      details: { field: 'priority', constraint: 'not_allowed' },
    },
    { body: { type: 'A', name: 'q', content: '192.0.2.1', proxied: true }, status: 422 },
    { body: { type: 'A', content: '192.0.2.1' }, status: 400, details: { field: 'name', constraint: 'required' } },
    { body: { type: 'A', name: 'r', content: '192.0.2.1', color: 'x' }, status: 400, details: { field: 'color', constraint: 'unknown' } },
  ],
}

t.test('validation table, row by row', async (t) => {
  const app = await build(t)
  const dns = dnsApi(app, (await owner(app)).token)
  const zone = await dns.zone('example.com')
  for (const [row, cases] of Object.entries(table)) {
    t.test(row, async (t) => {
      for (const c of cases) {
        const res = await dns.record(zone.id, c.body)
        t.equal(res.statusCode, c.status, `${JSON.stringify(c.body)} → ${c.status} (${res.body})`)
        if (c.details) t.same(res.json().error.details, c.details, 'details name the field and constraint')
        if (c.status === 201) t.equal(res.json().data.content, c.content ?? c.body.content, 'content stored')
      }
    })
  }
})

t.test('names, PUT, DELETE, CNAME rule, duplicates, events', async (t) => {
  const app = await build(t)
  const dns = dnsApi(app, (await owner(app)).token)
  const zone = await dns.zone('example.org')
  const events = recordEvents(app, 'dns.record.*')

  const www = (await dns.record(zone.id, { type: 'A', name: 'WWW.example.org.', content: '192.0.2.1', ttl: 300 })).json().data
  t.match(www, { name: 'www', type: 'A', content: '192.0.2.1', ttl: 300, priority: null, proxied: false, zone_id: zone.id })
  t.match(www.id, /^[0-9a-f-]{36}$/, 'authoritative record ids are UUIDs')
  t.equal((await dns.record(zone.id, { type: 'A', name: 'www', content: '192.0.2.1' })).statusCode, 409, 'same record twice → 409')

  const put = await dns.call('PUT', `/zones/${zone.id}/records/${www.id}`, { type: 'AAAA', name: 'www', content: '2001:db8::5' })
  t.equal(put.statusCode, 200, put.body)
  t.match(put.json().data, { id: www.id, type: 'AAAA', content: '2001:db8::5', ttl: 3600 }, 'PUT replaces the record (ttl back to default)')
  const badPut = await dns.call('PUT', `/zones/${zone.id}/records/${www.id}`, { type: 'MX', name: 'www', content: 'mail.example.org' })
  t.same(badPut.json().error.details, { field: 'priority', constraint: 'required' }, 'PUT runs the same validation')
  t.equal((await dns.call('PUT', `/zones/${zone.id}/records/nope`, { type: 'A', name: 'x', content: '192.0.2.1' })).statusCode, 404)

  const cname = await dns.record(zone.id, { type: 'CNAME', name: 'www', content: 'elsewhere.net' })
  t.equal(cname.statusCode, 422, 'CNAME beside another record → 422')
  t.equal(cname.json().error.code, 'UNPROCESSABLE')
  t.equal(
    (await dns.record(zone.id, { type: 'CNAME', name: '@', content: 'elsewhere.net' })).statusCode,
    422,
    'CNAME at the apex (SOA, NS) → 422',
  )
  const blog = (await dns.record(zone.id, { type: 'CNAME', name: 'blog', content: 'www.example.org' })).json().data
  t.equal((await dns.record(zone.id, { type: 'TXT', name: 'blog', content: 'x' })).statusCode, 422, 'record beside a CNAME → 422')
  t.equal(
    (await dns.call('PUT', `/zones/${zone.id}/records/${www.id}`, { type: 'A', name: 'blog', content: '192.0.2.2' })).statusCode,
    422,
    'PUT onto a CNAME name → 422',
  )
  t.equal(
    (await dns.call('PUT', `/zones/${zone.id}/records/${blog.id}`, { type: 'CNAME', name: 'blog', content: 'other.example.org' }))
      .statusCode,
    200,
    'a CNAME may replace itself',
  )

  const soa = (await dns.call('GET', `/zones/${zone.id}/records`)).json().data.find((r: { type: string }) => r.type === 'SOA')
  t.equal((await dns.call('DELETE', `/zones/${zone.id}/records/${soa.id}`)).statusCode, 422, 'the SOA is the server’s')
  const del = await dns.call('DELETE', `/zones/${zone.id}/records/${www.id}`)
  t.same(del.json().data, { id: www.id, deleted: true })
  t.equal((await dns.call('DELETE', `/zones/${zone.id}/records/${www.id}`)).statusCode, 404, 'deleted once')
  t.equal((await dns.call('GET', `/zones/${zone.id}`)).json().data.records_count, 3, 'records_count: SOA, NS, blog')
  t.same(
    events.map((e) => e.type),
    ['dns.record.created', 'dns.record.updated', 'dns.record.created', 'dns.record.updated', 'dns.record.deleted'],
  )
  t.match(events[0], { id: www.id, data: { name: 'www', content: '192.0.2.1' } })
})
