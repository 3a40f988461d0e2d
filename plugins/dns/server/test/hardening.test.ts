import dgram from 'node:dgram'
import net from 'node:net'
import t from 'tap'
import { dig } from './dig.js'
import { startServer } from './start.js'
import { exampleZone } from './zone.js'

/**
 * What an unauthenticated client on the internet can do to port 53, and
 * the answers a resolver must be able to trust.
 */

/** A query for `name` of `type` with the given id, optionally with an EDNS OPT advertising `udpSize`. */
function query(name: string, type: number, id = 0x1234, udpSize = 0): Buffer {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]))
  const header = Buffer.from([id >> 8, id & 0xff, 0x00, 0x00, 0, 1, 0, 0, 0, 0, 0, udpSize ? 1 : 0])
  const question = Buffer.concat([...labels, Buffer.from([0, type >> 8, type & 0xff, 0, 1])])
  const opt = udpSize ? Buffer.from([0, 0, 41, udpSize >> 8, udpSize & 0xff, 0, 0, 0, 0, 0, 0]) : Buffer.alloc(0)
  return Buffer.concat([header, question, opt])
}

const framed = (msg: Buffer) => Buffer.concat([Buffer.from([msg.length >> 8, msg.length & 0xff]), msg])
const ANY = 255
const TXT = 16

t.test('a TCP client that pipelines queries and never reads cannot grow the daemon', async (t) => {
  const { server, port } = await startServer(t, [exampleZone()])
  const client = net.connect(port, '127.0.0.1')
  await new Promise((resolve) => client.once('connect', resolve))
  client.pause() // never read: the answers (2.8 kB each) pile up on the server's side
  const before = process.memoryUsage().arrayBuffers
  const one = framed(query('big.example.test', TXT))
  const burst = Buffer.concat(Array.from({ length: 20_000 }, () => one)) // 56 MB of answers if all were written
  client.write(burst)
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const grown = process.memoryUsage().arrayBuffers - before
  t.ok(server.status.tcpPaused >= 1, 'the server stopped reading that connection')
  // What was answered sits in the kernel's socket buffers (a few MB on loopback) or is garbage not yet collected.
  t.ok(grown < 24 * 1024 * 1024, `buffers grew by ${Math.round(grown / 1024)} KiB, not by the 56 MB of unread answers`)
  t.ok(server.status.queries < 10_000, `${server.status.queries} of 20,000 queries answered before reading stopped`)
  const other = await dig(port, 'www.example.test', 'A', ['+tcp'])
  t.equal(other.answer[0]?.data, '192.0.2.10', 'other clients are still served')

  // Once the client reads, the paused queries are answered in order.
  let received = 0
  let leftover = Buffer.alloc(0)
  client.on('data', (chunk: Buffer) => {
    leftover = Buffer.concat([leftover, chunk])
    while (leftover.length >= 2 && leftover.length >= 2 + leftover.readUInt16BE(0)) {
      received++
      leftover = leftover.subarray(2 + leftover.readUInt16BE(0))
    }
  })
  client.resume()
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (received === 20_000) resolve(clearInterval(poll))
    }, 50)
  })
  t.equal(received, 20_000, 'every query is answered once the client reads')
  client.destroy()
})

t.test('UDP answers are capped at 1,232 bytes and ANY is minimal (no amplification)', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  const big = await dig(port, 'big.example.test', 'TXT', ['+bufsize=4096', '+ignore'])
  t.ok(big.flags.includes('tc'), 'a 2.8 kB answer is truncated although the client advertises 4096')
  const any = await dig(port, 'example.test', 'ANY', ['+bufsize=4096', '+ignore', '+notcp'])
  t.notOk(any.flags.includes('tc'))
  t.equal(new Set(any.answer.map((r) => r.type)).size, 1, 'one RRset (RFC 8482 4.1)')
  t.equal(any.answer[0]?.type, 'A', 'the lowest type present')
  const tcp = await dig(port, 'example.test', 'ANY', ['+tcp'])
  t.same(new Set(tcp.answer.map((r) => r.type)), new Set(['A']), 'the same over TCP, as Knot answers')

  const socket = dgram.createSocket('udp4')
  t.teardown(() => socket.close())
  const reply = new Promise<Buffer>((resolve) => socket.once('message', resolve))
  const packet = query('example.test', ANY, 7, 4096)
  socket.send(packet, port, '127.0.0.1')
  const answer = await reply
  t.ok(answer.length <= 1232, `${packet.length} bytes in, ${answer.length} out`)
  t.ok(answer.length / packet.length < 4, 'amplification factor under 4')
})

t.test('response rate limiting per source prefix drops or truncates answers over the rate', async (t) => {
  const { server, port } = await startServer(t, [exampleZone()], { rateLimit: { perSecond: 5, slip: 2, exemptLoopback: false } })
  const socket = dgram.createSocket('udp4')
  t.teardown(() => socket.close())
  const replies: Buffer[] = []
  socket.on('message', (msg) => replies.push(msg))
  for (let i = 0; i < 100; i++) socket.send(query('www.example.test', 1, i), port, '127.0.0.1')
  await settled(replies)
  const full = replies.filter((r) => (r[2] & 0x02) === 0)
  const truncated = replies.filter((r) => (r[2] & 0x02) !== 0)
  t.ok(full.length >= 5 && full.length <= 10, `${full.length} full answers for 100 queries at 5/s`)
  t.ok(truncated.length >= 40 && truncated.length <= 50, `${truncated.length} truncated answers (every second limited one)`)
  t.ok(
    truncated.every((r) => r.readUInt16BE(6) === 0 && r.length < 40),
    'a truncated answer carries no records',
  )
  t.ok(server.status.rateLimited >= 90, `${server.status.rateLimited} answers limited`)
  const tcp = await dig(port, 'www.example.test', 'A', ['+tcp'])
  t.equal(tcp.answer[0]?.data, '192.0.2.10', 'TCP is never rate limited')

  const { port: exempt } = await startServer(t, [exampleZone()], { rateLimit: { perSecond: 5 } })
  const local: Buffer[] = []
  const client = dgram.createSocket('udp4')
  t.teardown(() => client.close())
  client.on('message', (msg) => local.push(msg))
  for (let i = 0; i < 20; i++) client.send(query('www.example.test', 1, i), exempt, '127.0.0.1')
  await settled(local, 20)
  t.ok(
    local.length === 20 && local.every((r) => (r[2] & 0x02) === 0 && r.readUInt16BE(6) === 1),
    `loopback (a local resolver, tests) is exempt by default: ${local.length} full answers for 20 queries`,
  )
})

/**
 * Waits until `replies` holds `count` answers, or (without a count) until no answer came for half a
 * second: a fixed pause misses answers on a machine whose cores are all taken.
 */
async function settled(replies: Buffer[], count = Infinity): Promise<void> {
  let seen = -1
  for (let i = 0; i < 300 && replies.length < count; i++) {
    if (count === Infinity && i % 10 === 9) {
      if (replies.length === seen) return
      seen = replies.length
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

t.test('answers after a CNAME: negative TTL, referral, wildcard CNAME (RFC 2308, 1034, 4592)', async (t) => {
  const zone = exampleZone()
  zone.records.push(
    {
      name: 'example.test',
      type: 'SOA',
      ttl: 3600,
      content: 'ns1.example.test hostmaster.example.test 3600 600 1209600 300',
      priority: null,
    },
    { name: 'into-sub.example.test', type: 'CNAME', ttl: 300, content: 'host.sub.example.test', priority: null },
    { name: '*.w.example.test', type: 'CNAME', ttl: 300, content: 'www.example.test', priority: null },
  )
  const { port } = await startServer(t, [zone])
  const nodata = await dig(port, 'alias.example.test', 'MX')
  t.equal(nodata.status, 'NOERROR')
  t.equal(nodata.answer[0]?.type, 'CNAME')
  t.equal(nodata.authority[0]?.type, 'SOA')
  t.equal(nodata.authority[0]?.ttl, 300, 'NODATA after a CNAME: SOA TTL = min(3600, MINIMUM 300)')
  const nx = await dig(port, 'dangling.example.test', 'A')
  t.equal(nx.status, 'NXDOMAIN')
  t.equal(nx.authority[0]?.ttl, 300, 'NXDOMAIN after a CNAME: same')

  const referral = await dig(port, 'into-sub.example.test', 'A')
  t.same(
    referral.answer.map((r) => `${r.name} ${r.type} ${r.data}`),
    ['into-sub.example.test. CNAME host.sub.example.test.'],
  )
  t.same(
    referral.authority.map((r) => `${r.name} ${r.type} ${r.data}`),
    ['sub.example.test. NS ns.sub.example.test.'],
    'the CNAME, then the referral to the delegated child',
  )
  t.same(
    referral.additional.map((r) => `${r.name} ${r.type} ${r.data}`),
    ['ns.sub.example.test. A 192.0.2.77'],
    'with glue',
  )

  const wild = await dig(port, 'anything.w.example.test', 'AAAA')
  t.same(
    wild.answer.map((r) => `${r.name} ${r.type} ${r.data}`),
    ['anything.w.example.test. CNAME www.example.test.', 'www.example.test. AAAA 2001:db8::10'],
    'a synthesised CNAME is followed',
  )
})

t.test('a TCP client trickling bytes that never make a query is closed by the idle timer', async (t) => {
  const { port } = await startServer(t, [exampleZone()], { tcpIdleMs: 300 })
  const client = net.connect(port, '127.0.0.1')
  await new Promise((resolve) => client.once('connect', resolve))
  const closed = new Promise<boolean>((resolve) => client.once('close', () => resolve(true)))
  client.write(Buffer.from([0x01, 0xff])) // a 511-byte frame announced, then one byte of it every 50 ms
  const trickle = setInterval(() => client.write(Buffer.from([0])), 50)
  const result = await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 3000))])
  clearInterval(trickle)
  client.destroy()
  t.ok(result, 'closed although bytes kept arriving')
})
