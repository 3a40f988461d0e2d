import dns2 from 'dns2'
import t from 'tap'
import { ByteWriter } from '../byte-writer.js'
import { QTYPE, toWireRecord } from '../records.js'
import type { ZoneRecord } from '../types.js'

// dns2's own bit-array writer is the reference: ours must produce the same bytes.
const { Packet } = dns2 as unknown as {
  Packet: { new (): Record<string, unknown> & { toBuffer(w?: unknown): Buffer }; Resource: { encode(rr: unknown, w?: unknown): Buffer } }
}

const records: ZoneRecord[] = [
  {
    name: 'example.test',
    type: 'SOA',
    ttl: 3600,
    content: 'ns1.example.test hostmaster.example.test 3600 600 1209600 300',
    priority: null,
  },
  { name: 'example.test', type: 'NS', ttl: 3600, content: 'ns1.example.test', priority: null },
  { name: 'www.example.test', type: 'A', ttl: 300, content: '192.0.2.10', priority: null },
  { name: 'www.example.test', type: 'AAAA', ttl: 300, content: '2001:db8::10', priority: null },
  { name: 'alias.example.test', type: 'CNAME', ttl: 300, content: 'www.example.test', priority: null },
  { name: 'example.test', type: 'MX', ttl: 300, content: 'mail.example.test', priority: 10 },
  { name: 'example.test', type: 'TXT', ttl: 300, content: 'x'.repeat(600), priority: null },
  { name: '_sip._tcp.example.test', type: 'SRV', ttl: 300, content: '5 5060 mail.example.test', priority: 1 },
  { name: 'example.test', type: 'CAA', ttl: 4294967295, content: '128 issue "letsencrypt.org"', priority: null },
]

function packet(): Record<string, unknown> & { toBuffer(w?: unknown): Buffer } {
  const p = new Packet()
  p.header = { id: 0xbeef, qr: 1, opcode: 0, aa: 1, tc: 0, rd: 1, ra: 0, z: 0, ad: 0, cd: 1, rcode: 3 }
  p.questions = [{ name: 'www.example.test', type: QTYPE.A, class: 1 }]
  p.answers = records.map((r) => ({ ...toWireRecord(r, 2026112201), name: r.name }))
  p.authorities = []
  p.additionals = []
  return p
}

t.test('same bytes as dns2 Writer for a packet with every type and compression', async (t) => {
  const reference = packet().toBuffer()
  const ours = packet().toBuffer(new ByteWriter())
  t.equal(ours.length, reference.length)
  t.ok(ours.equals(reference), 'identical encoding')
})

t.test('same bytes for a lone record without compression', async (t) => {
  for (const r of records) {
    const rr = { ...toWireRecord(r, 7), name: r.name }
    t.ok(Packet.Resource.encode(rr, new ByteWriter()).equals(Packet.Resource.encode(rr)), r.type)
  }
})

t.test('grows past its first 512 bytes and patches across bit offsets', async (t) => {
  const w = new ByteWriter()
  w.write(1, 1)
  w.write(5, 3)
  for (let i = 0; i < 700; i++) w.write(i & 0xffff, 16)
  w.patch(4, 0xabcd, 16)
  const out = w.toBuffer()
  t.equal(out.length, Math.ceil((4 + 700 * 16) / 8))
  t.equal(out[0] >> 4, 0b1101, 'leading bits 1,101')
  t.equal(((out[0] & 0x0f) << 12) | (out[1] << 4) | (out[2] >> 4), 0xabcd, 'patched 16 bits at bit 4')
})
