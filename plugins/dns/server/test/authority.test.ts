import t from 'tap'
import { dig } from './dig.js'
import { startServer } from './start.js'
import { exampleZone } from './zone.js'

const SERIAL = 2026112201
const both = [[], ['+tcp']]

t.test('authoritative answers: AA, NXDOMAIN, NODATA, REFUSED', async (t) => {
  const { port } = await startServer(t, [exampleZone(SERIAL)])
  for (const tr of both) {
    const via = tr.join('') || 'udp'
    const nx = await dig(port, 'nothing-here.example.test', 'A', tr)
    t.equal(nx.status, 'NXDOMAIN', `unknown name in zone → NXDOMAIN (${via})`)
    t.ok(nx.flags.includes('aa'), `NXDOMAIN is authoritative (${via})`)
    t.equal(nx.answer.length, 0)
    t.equal(nx.authority.length, 1)
    t.equal(nx.authority[0].type, 'SOA', `SOA in authority (${via})`)
    t.equal(nx.authority[0].data.split(' ')[2], String(SERIAL), 'serial in the negative SOA')
    t.equal(nx.authority[0].ttl, 300, 'negative TTL = min(SOA TTL, minimum) (RFC 2308)')

    const nodata = await dig(port, 'www.example.test', 'MX', tr)
    t.equal(nodata.status, 'NOERROR', `known name without the type → NOERROR (${via})`)
    t.ok(nodata.flags.includes('aa'))
    t.equal(nodata.answer.length, 0, 'NODATA has no answer')
    t.equal(nodata.authority[0]?.type, 'SOA', 'NODATA carries the SOA')

    const ent = await dig(port, 'b.deep.example.test', 'A', tr)
    t.equal(ent.status, 'NOERROR', `empty non-terminal is NODATA, not NXDOMAIN (${via})`)

    const refused = await dig(port, 'www.example.org', 'A', tr)
    t.equal(refused.status, 'REFUSED', `outside every zone → REFUSED (${via})`)
    t.notOk(refused.flags.includes('aa'), 'REFUSED is not authoritative')
    t.equal((await dig(port, 'test', 'A', tr)).status, 'REFUSED', 'parent of the zone → REFUSED')
  }
})

t.test('SOA and NS are synthesised at the apex when not given', async (t) => {
  const { port } = await startServer(t, [
    { name: 'bare.test', serial: 42, records: [{ name: 'x.bare.test', type: 'A', ttl: 60, content: '198.51.100.1', priority: null }] },
  ])
  const soa = await dig(port, 'bare.test', 'SOA')
  t.equal(soa.answer[0]?.data, 'ns1.bare.test. hostmaster.bare.test. 42 3600 600 1209600 300')
  const ns = await dig(port, 'bare.test', 'NS', ['+tcp'])
  t.same(
    ns.answer.map((r) => r.data),
    ['ns1.bare.test.'],
  )
  t.ok(ns.flags.includes('aa'))
})

t.test('CNAME: target chased inside the zone only', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  for (const tr of both) {
    const one = await dig(port, 'alias.example.test', 'A', tr)
    t.same(
      one.answer.map((r) => `${r.name} ${r.type} ${r.data}`),
      ['alias.example.test. CNAME www.example.test.', 'www.example.test. A 192.0.2.10'],
    )
    const two = await dig(port, 'chain.example.test', 'AAAA', tr)
    t.same(
      two.answer.map((r) => r.type),
      ['CNAME', 'CNAME', 'AAAA'],
      'two-step chain',
    )
    const dangling = await dig(port, 'dangling.example.test', 'A', tr)
    t.equal(dangling.status, 'NXDOMAIN', 'CNAME to a missing in-zone name: NXDOMAIN (RFC 6604)')
    t.equal(dangling.answer[0]?.type, 'CNAME')
    t.equal(dangling.authority[0]?.type, 'SOA')
    const outside = await dig(port, 'outside.example.test', 'A', tr)
    t.equal(outside.status, 'NOERROR')
    t.same(
      outside.answer.map((r) => r.data),
      ['www.elsewhere.invalid.'],
      'out-of-zone target not chased',
    )
    const asked = await dig(port, 'alias.example.test', 'CNAME', tr)
    t.equal(asked.answer.length, 1, 'CNAME query returns the CNAME alone')
  }
})

t.test('MX and SRV answers carry the targets A/AAAA in additional', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  for (const tr of both) {
    const mx = await dig(port, 'example.test', 'MX', tr)
    const extra = mx.additional.map((r) => `${r.name} ${r.type} ${r.data}`).sort()
    t.same(extra, ['mail.example.test. A 192.0.2.25', 'mail.example.test. AAAA 2001:db8::25', 'mx2.example.test. A 192.0.2.26'])
    const srv = await dig(port, '_sip._tcp.example.test', 'SRV', tr)
    t.same(srv.additional.map((r) => r.type).sort(), ['A', 'AAAA'])
    const ns = await dig(port, 'example.test', 'NS', tr)
    t.same(ns.additional.map((r) => r.data).sort(), ['192.0.2.53', '192.0.2.54'], 'NS glue')
  }
})

t.test('names are case-insensitive and the question case is echoed', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  for (const tr of both) {
    // Query twice: the second answer comes from the pre-encoded cache.
    for (const name of ['WWW.Example.TEST', 'www.EXAMPLE.test']) {
      const res = await dig(port, name, 'A', tr)
      t.equal(res.status, 'NOERROR')
      t.equal(res.answer[0]?.name, `${name}.`, 'owner echoes the question case')
      t.equal(res.answer[0]?.data, '192.0.2.10')
    }
    t.equal((await dig(port, 'NOPE.EXAMPLE.TEST', 'A', tr)).status, 'NXDOMAIN')
  }
})

t.test('NS below the apex is a delegation: referral without AA', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  for (const name of ['sub.example.test', 'host.sub.example.test']) {
    const res = await dig(port, name, 'A')
    t.equal(res.status, 'NOERROR', name)
    t.notOk(res.flags.includes('aa'), 'referral is not authoritative')
    t.same(
      res.authority.map((r) => `${r.type} ${r.data}`),
      ['NS ns.sub.example.test.'],
    )
    t.same(
      res.additional.map((r) => r.data),
      ['192.0.2.77'],
      'glue',
    )
  }
  const ds = await dig(port, 'sub.example.test', 'DS')
  t.ok(ds.flags.includes('aa'), 'DS at the cut is answered by the parent')
  t.equal(ds.authority[0]?.type, 'SOA', 'NODATA: no DS here')
  t.notOk((await dig(port, 'host.sub.example.test', 'DS')).flags.includes('aa'), 'DS below the cut is referred')
})

t.test('ANY returns one set at the name (RFC 8482, as Knot does); other opcodes and classes', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  const any = await dig(port, 'www.example.test', 'ANY', ['+tcp'])
  t.same(any.answer.map((r) => r.type).sort(), ['A'])
  t.equal((await dig(port, 'www.example.test', 'A', ['-c', 'CH'])).status, 'REFUSED', 'class CH refused')
  t.equal((await dig(port, 'example.test', 'AXFR', ['+tcp'])).raw.includes('Transfer failed'), true, 'AXFR refused')
  t.equal((await dig(port, 'www.example.test', 'A', ['+opcode=status'])).status, 'NOTIMP')
})

t.test('wildcards synthesise answers for names that do not exist (RFC 4592)', async (t) => {
  const rr = (name: string, type: 'A' | 'MX' | 'CNAME' | 'TXT', content: string, priority: number | null = null) => ({
    name,
    type,
    ttl: 120,
    content,
    priority,
  })
  const zone = {
    name: 'wild.test',
    serial: 9,
    records: [
      rr('*.wild.test', 'A', '192.0.2.80'),
      rr('*.wild.test', 'MX', 'mail.wild.test', 10),
      rr('mail.wild.test', 'A', '192.0.2.81'),
      rr('*.svc.wild.test', 'CNAME', 'target.wild.test'),
      rr('a.b.wild.test', 'TXT', 'deep'),
      rr('alias.wild.test', 'CNAME', 'covered.wild.test'),
    ],
  }
  const { port } = await startServer(t, [zone])
  for (const tr of both) {
    for (const name of ['anything.wild.test', 'Two.Labels.WILD.test']) {
      const res = await dig(port, name, 'A', tr)
      t.equal(res.status, 'NOERROR', name)
      t.ok(res.flags.includes('aa'))
      t.same(
        res.answer.map((r) => `${r.name} ${r.ttl} ${r.type} ${r.data}`),
        [`${name}. 120 A 192.0.2.80`],
        'owner is the asked name, case echoed',
      )
    }
    const mx = await dig(port, 'host.wild.test', 'MX', tr)
    t.same(
      mx.answer.map((r) => r.data),
      ['10 mail.wild.test.'],
    )
    t.same(
      mx.additional.map((r) => r.data),
      ['192.0.2.81'],
      'glue for the synthesised MX',
    )
    const chased = await dig(port, 'alias.wild.test', 'A', tr)
    t.same(
      chased.answer.map((r) => `${r.name} ${r.type} ${r.data}`),
      ['alias.wild.test. CNAME covered.wild.test.', 'covered.wild.test. A 192.0.2.80'],
      'CNAME target covered by the wildcard is chased',
    )
    const nodata = await dig(port, 'host.wild.test', 'AAAA', tr)
    t.equal(nodata.status, 'NOERROR', 'wildcard without the type → NODATA')
    t.equal(nodata.authority[0]?.type, 'SOA')
    t.equal((await dig(port, 'mail.wild.test', 'A', tr)).answer[0]?.data, '192.0.2.81', 'existing names are not overridden')
    t.equal((await dig(port, 'x.b.wild.test', 'A', tr)).status, 'NXDOMAIN', 'the closest encloser b.wild.test has no wildcard')
    const cname = await dig(port, 'api.svc.wild.test', 'A', tr)
    t.same(
      cname.answer.map((r) => `${r.name} ${r.type} ${r.data}`),
      ['api.svc.wild.test. CNAME target.wild.test.', 'target.wild.test. A 192.0.2.80'],
      'a CNAME synthesised from a wildcard is followed inside the zone (RFC 4592 2.1.3)',
    )
  }
})
