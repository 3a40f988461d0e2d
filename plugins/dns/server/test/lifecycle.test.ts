import t from 'tap'
import { createDnsServer } from '../index.js'
import { dig } from './dig.js'
import { memoryLog, startServer } from './start.js'
import { exampleZone } from './zone.js'

t.test('changes are answered at once, no restart, no stale cached answer', async (t) => {
  const zone = exampleZone(1)
  const { server, port } = await startServer(t, [zone])
  // Warm the pre-encoded cache, then change the record behind it.
  t.equal((await dig(port, 'www.example.test', 'A')).answer[0]?.data, '192.0.2.10')
  t.equal((await dig(port, 'www.example.test', 'A')).answer[0]?.data, '192.0.2.10')
  const www = zone.records.find((r) => r.name === 'www.example.test' && r.type === 'A')
  if (www) www.content = '192.0.2.11'
  zone.records.push({ name: 'new.example.test', type: 'TXT', ttl: 60, content: 'fresh', priority: null })
  server.putZone({ ...zone, serial: 2 })
  t.equal((await dig(port, 'www.example.test', 'A')).answer[0]?.data, '192.0.2.11', 'changed record served')
  t.equal((await dig(port, 'new.example.test', 'TXT', ['+tcp'])).answer[0]?.data, '"fresh"', 'added record served')
  t.equal((await dig(port, 'example.test', 'SOA')).answer[0]?.data.split(' ')[2], '2', 'serial follows the caller')

  server.putZone({
    name: 'other.test',
    serial: 1,
    records: [{ name: 'other.test', type: 'A', ttl: 60, content: '203.0.113.5', priority: null }],
  })
  t.equal((await dig(port, 'other.test', 'A')).answer[0]?.data, '203.0.113.5', 'second zone added')
  t.equal(server.status.zones, 2)
  server.removeZone('example.test')
  t.equal((await dig(port, 'www.example.test', 'A')).status, 'REFUSED', 'removed zone → REFUSED')
  t.equal((await dig(port, 'other.test', 'A')).status, 'NOERROR', 'other zone still served')
  server.setZones([])
  t.equal((await dig(port, 'other.test', 'A')).status, 'REFUSED', 'setZones replaces everything')
  t.equal(server.status.zones, 0)
})

t.test('a child zone occludes the parent below its apex', async (t) => {
  const child = {
    name: 'sub.example.test',
    serial: 5,
    records: [{ name: 'host.sub.example.test', type: 'A' as const, ttl: 60, content: '198.51.100.7', priority: null }],
  }
  const { port } = await startServer(t, [exampleZone(), child])
  const res = await dig(port, 'host.sub.example.test', 'A')
  t.ok(res.flags.includes('aa'), 'answered from the child zone, not referred')
  t.equal(res.answer[0]?.data, '198.51.100.7')
  t.equal((await dig(port, 'nope.sub.example.test', 'A')).authority[0]?.name, 'sub.example.test.', 'child SOA for its NXDOMAIN')
})

t.test('adding and removing a child zone later switches between referral and answer', async (t) => {
  const { server, port } = await startServer(t, [exampleZone()])
  const referral = await dig(port, 'host.sub.example.test', 'A')
  t.notOk(referral.flags.includes('aa'), 'parent refers before the child exists')
  server.putZone({
    name: 'SUB.example.test.',
    serial: 1,
    records: [{ name: 'host.sub.example.test', type: 'A', ttl: 60, content: '198.51.100.8', priority: null }],
  })
  const answer = await dig(port, 'host.sub.example.test', 'A')
  t.ok(answer.flags.includes('aa'))
  t.equal(answer.answer[0]?.data, '198.51.100.8', 'zone name normalised, child answers')
  server.removeZone('sub.example.test')
  t.notOk((await dig(port, 'host.sub.example.test', 'A')).flags.includes('aa'), 'referral again')
  t.equal((await dig(port, 'www.example.test', 'A')).answer[0]?.data, '192.0.2.10', 'parent untouched')
})

t.test('bind failure is reported, not thrown; status tells', async (t) => {
  const { port } = await startServer(t, [])
  const second = createDnsServer({ host: '127.0.0.1', port, log: memoryLog() })
  const result = await second.start()
  t.equal(result.udp, false)
  t.equal(result.tcp, false)
  t.match(result.error, /UDP 127\.0\.0\.1:\d+: port already in use \(EADDRINUSE\)/)
  t.match(result.error, /TCP 127\.0\.0\.1:\d+: port already in use/)
  t.same({ running: second.status.running, error: second.status.error }, { running: false, error: result.error })
  await second.stop()

  const unbindable = createDnsServer({ host: '192.0.2.1', port: 0, log: memoryLog() })
  const bad = await unbindable.start()
  t.match(bad.error, /EADDRNOTAVAIL/, 'address not on this machine')
  await unbindable.stop()
})

t.test('start is idempotent, stop frees the port, status counts', async (t) => {
  const server = createDnsServer({ host: '127.0.0.1', port: 0, log: memoryLog() })
  const first = await server.start()
  t.same(await server.start(), first, 'second start returns the same result')
  server.setZones([exampleZone()])
  await dig(first.port, 'www.example.test', 'A')
  t.equal(server.status.queries, 1)
  t.equal(server.status.running, true)
  await server.stop()
  t.equal(server.status.running, false)
  const again = createDnsServer({ host: '127.0.0.1', port: first.port, log: memoryLog() })
  const res = await again.start()
  t.same([res.udp, res.tcp], [true, true], 'port free again after stop')
  await again.stop()
})

t.test("host '::' serves IPv4 and IPv6 clients on one port", async (t) => {
  const server = createDnsServer({ host: '::', port: 0, log: memoryLog() })
  const started = await server.start()
  t.teardown(() => server.stop())
  if (!started.udp) {
    console.log(`# dual-stack test skipped: ${started.error}`)
    return t.pass(`skipped: no IPv6 here (${started.error})`)
  }
  server.setZones([exampleZone()])
  for (const [address, tr] of [
    ['127.0.0.1', []],
    ['::1', []],
    ['::1', ['+tcp']],
  ] as const) {
    const res = await dig(started.port, 'www.example.test', 'A', [...tr], address)
    t.equal(res.answer[0]?.data, '192.0.2.10', `via ${address} ${tr.join('') || 'udp'}`)
  }
})
