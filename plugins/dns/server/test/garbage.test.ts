import dgram from 'node:dgram'
import net from 'node:net'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { dig } from './dig.js'
import { startServer } from './start.js'
import { exampleZone } from './zone.js'

/** A well-formed query for `name` A (id 0x1234, RD). */
function query(name: string): Buffer {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]))
  const header = Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0])
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])])
}

const header = (flags: number, qd: number, an = 0, ns = 0, ar = 0) =>
  Buffer.from([0xab, 0xcd, flags >> 8, flags & 0xff, qd >> 8, qd & 0xff, an >> 8, an & 0xff, ns >> 8, ns & 0xff, ar >> 8, ar & 0xff])

function garbage(): Buffer[] {
  const valid = query('www.example.test')
  const packets: Buffer[] = []
  for (let i = 0; i < 1500; i++) packets.push(randomBytes(i % 700))
  for (let i = 0; i < valid.length; i++) packets.push(valid.subarray(0, i)) // every truncation
  packets.push(Buffer.concat([header(0x0100, 1), Buffer.alloc(200, 1), Buffer.from([0, 0, 1, 0, 1])])) // 200 one-byte labels
  packets.push(Buffer.concat([header(0x0100, 1), Buffer.from('\x01a'.repeat(127)), Buffer.from([0, 0, 1, 0, 1])])) // 127 labels
  packets.push(Buffer.concat([header(0x0100, 1), Buffer.from([0xc0, 0x0c, 0, 1, 0, 1])])) // pointer to itself
  packets.push(Buffer.concat([header(0x0100, 1), Buffer.from([1, 0x61, 0xc0, 0x0c, 0, 1, 0, 1])])) // loop via a label
  packets.push(Buffer.concat([header(0x0100, 1), Buffer.from([0x40, 0x61, 0, 0, 1, 0, 1])])) // reserved label type
  packets.push(Buffer.concat([header(0x0100, 1), Buffer.from([0x3f]), Buffer.alloc(10, 0x61)])) // label runs past the end
  packets.push(Buffer.concat([header(0x0100, 0xffff, 0xffff, 0xffff, 0xffff), valid.subarray(12)])) // lying counts
  packets.push(Buffer.concat([header(0x0100, 1, 0, 0, 0xffff), valid.subarray(12), Buffer.from([0xc0, 0x0c, 0, 41])])) // cut OPT
  packets.push(
    Buffer.concat([header(0x0100, 1, 0, 0, 2), valid.subarray(12), ...Array(2).fill(Buffer.from([0, 0, 41, 16, 0, 0, 0, 0, 0, 0, 0]))]),
  ) // two OPTs
  packets.push(Buffer.concat([header(0x0100, 1, 0, 0, 1), valid.subarray(12), Buffer.from([0, 0, 41, 16, 0, 0, 0, 0, 0, 0xff, 0xff])])) // OPT rdlen past end
  packets.push(Buffer.concat([header(0x0100, 0), Buffer.alloc(20)])) // no question
  packets.push(randomBytes(60_000)) // near-maximal datagram
  return packets
}

function collectReplies(socket: dgram.Socket): Buffer[] {
  const replies: Buffer[] = []
  socket.on('message', (msg) => replies.push(msg))
  return replies
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms))

t.test('UDP garbage barrage: dropped without harm, server still answers', async (t) => {
  const { server, port } = await startServer(t, [exampleZone()])
  const sender = dgram.createSocket('udp4')
  t.teardown(() => sender.close())
  const replies = collectReplies(sender)
  const packets = garbage()
  for (const [i, packet] of packets.entries()) {
    await new Promise<void>((resolve) => sender.send(packet, port, '127.0.0.1', () => resolve()))
    if (i % 25 === 0) await settle(2) // stay under the loopback receive buffer: every packet must reach the server
  }
  await settle(300)
  const { dropped, queries } = server.status
  t.ok(dropped > 1000, `garbage counted as dropped (${dropped})`)
  t.equal(dropped + queries, packets.length, 'every packet reached the server and was handled')
  t.equal(replies.length, queries, 'a reply only for what was answered')
  for (const reply of replies) t.equal(reply[2] & 0x80, 0x80, 'anything answered is a well-formed response')
  t.equal((await dig(port, 'www.example.test', 'A')).answer[0]?.data, '192.0.2.10', 'still answers over UDP')
  t.equal((await dig(port, 'www.example.test', 'A', ['+tcp'])).answer[0]?.data, '192.0.2.10', 'still answers over TCP')
})

t.test('responses (QR set) are never answered: no reflection loops', async (t) => {
  const { server, port } = await startServer(t, [exampleZone()])
  const sender = dgram.createSocket('udp4')
  t.teardown(() => sender.close())
  const replies = collectReplies(sender)
  const asResponse = query('www.example.test')
  asResponse[2] |= 0x80
  for (let i = 0; i < 50; i++) sender.send(asResponse, port, '127.0.0.1')
  await settle(300)
  t.equal(replies.length, 0)
  t.equal(server.status.dropped, 50)
})

t.test('TCP garbage: bad frames dropped, the next good frame on the connection answered', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  const valid = query('www.example.test')
  const frame = (b: Buffer) => Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b])
  const socket = net.connect(port, '127.0.0.1')
  t.teardown(() => socket.destroy())
  const answer = new Promise<Buffer>((resolve) => {
    let buf = Buffer.alloc(0)
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk])
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) resolve(buf.subarray(2, 2 + buf.readUInt16BE(0)))
    })
  })
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  for (const packet of garbage().slice(0, 400)) socket.write(frame(packet.subarray(0, 65535)))
  socket.write(frame(Buffer.alloc(0)))
  // The good query split across two writes.
  const good = frame(valid)
  socket.write(good.subarray(0, 5))
  await settle(50)
  socket.write(good.subarray(5))
  const reply = await answer
  t.equal(reply.readUInt16BE(0), 0x1234, 'reply to the good query')
  t.equal(reply.readUInt16BE(6), 1, 'one answer')

  // A raw stream of random bytes then close: the server must survive it.
  const noise = net.connect(port, '127.0.0.1')
  await new Promise<void>((resolve) => noise.once('connect', () => resolve()))
  noise.end(randomBytes(100_000))
  await settle(200)
  t.equal((await dig(port, 'www.example.test', 'A', ['+tcp'])).answer[0]?.data, '192.0.2.10', 'still answers over TCP')
})
