import fc from 'fast-check'
import net from 'node:net'
import t from 'tap'
import { respond } from '../responder.js'
import { parseZone } from '../parsed-zone.js'
import { ZoneIndex } from '../zone-index.js'
import { memoryLog, startServer } from './start.js'
import { exampleZone } from './zone.js'

/**
 * The DNS wire parser and the TCP framing fed arbitrary bytes: a packet is answered or
 * dropped, never thrown out of the responder; an answer is bounded (1,232 bytes over UDP, 65,535
 * over TCP); and any way of cutting a stream of framed queries into TCP segments gives the same
 * answers in the same order.
 */

const index = new ZoneIndex([parseZone(exampleZone(), memoryLog()) as NonNullable<ReturnType<typeof parseZone>>])

function query(name: string, type: number, id: number): Buffer {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]))
  return Buffer.concat([
    Buffer.from([id >> 8, id & 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]),
    ...labels,
    Buffer.from([0, type >> 8, type & 0xff, 0, 1]),
  ])
}

const names = fc.constantFrom(
  'www.example.test',
  'example.test',
  'big.example.test',
  'alias.example.test',
  'nope.example.test',
  'x.sub.example.test',
  'other.invalid',
)
const types = fc.constantFrom(1, 2, 5, 6, 15, 16, 28, 33, 43, 255, 257, 99)
const validQuery = fc.tuple(names, types, fc.integer({ min: 0, max: 0xffff })).map(([n, ty, id]) => query(n, ty, id))

/** A valid query with a few bytes overwritten, cut short or extended. */
const mutated = fc
  .tuple(
    validQuery,
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
    fc.nat(),
    fc.uint8Array({ maxLength: 64 }),
  )
  .map(([q, flips, cut, tail]) => {
    const out = Buffer.from(q)
    for (const [at, byte] of flips) out[at % out.length] = byte
    return Buffer.concat([out.subarray(0, out.length - (cut % 4)), tail])
  })

t.test('any packet is answered or dropped; answers stay within their bounds', async (t) => {
  const check = (msg: Buffer) => {
    for (const tcp of [false, true]) {
      const out = respond(index, msg, tcp)
      if (out === null) continue
      if (out.length > (tcp ? 65_535 : 1232)) return false
      if ((out[2] & 0x80) === 0) return false // always a response (QR), never a reflected query
    }
    return true
  }
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b)),
      check,
    ),
    { numRuns: 2000 },
  )
  fc.assert(fc.property(mutated, check), { numRuns: 3000 })
  fc.assert(
    fc.property(validQuery, (q) => respond(index, q, false) !== null),
    { numRuns: 500 },
  )
  // Linear in the packet: a 64 KiB datagram of labels is refused in one pass (checked by finishing at all).
  const huge = Buffer.concat([Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), Buffer.alloc(65_000, 1)])
  t.equal(respond(index, huge, false), null, 'a 64 KB name is dropped')
  t.pass('properties hold')
})

t.test('any cutting of a TCP stream gives the same answers in order', async (t) => {
  const { port } = await startServer(t, [exampleZone()])
  await fc.assert(
    fc.asyncProperty(
      fc.array(validQuery, { minLength: 1, maxLength: 12 }),
      fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 30 }),
      async (queries, cuts) => {
        const stream = Buffer.concat(queries.map((q) => Buffer.concat([Buffer.from([q.length >> 8, q.length & 0xff]), q])))
        const socket = net.connect(port, '127.0.0.1')
        await new Promise((resolve) => socket.once('connect', resolve))
        const ids: number[] = []
        let buf = Buffer.alloc(0)
        const done = new Promise<void>((resolve) => {
          socket.on('data', (chunk: Buffer) => {
            buf = Buffer.concat([buf, chunk])
            while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
              ids.push(buf.readUInt16BE(2))
              buf = buf.subarray(2 + buf.readUInt16BE(0))
            }
            if (ids.length === queries.length) resolve()
          })
        })
        let at = 0
        for (let i = 0; at < stream.length; i++) {
          const n = cuts[i % cuts.length] as number
          socket.write(stream.subarray(at, at + n))
          at += n
          if (i % 3 === 0) await new Promise((r) => setImmediate(r))
        }
        await done
        socket.destroy()
        return ids.join() === queries.map((q) => q.readUInt16BE(0)).join()
      },
    ),
    { numRuns: 60 },
  )
  t.pass('framing holds')
})
