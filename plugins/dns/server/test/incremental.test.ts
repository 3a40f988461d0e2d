import fc from 'fast-check'
import t from 'tap'
import { createDnsServer, type ZoneRecord } from '../index.js'
import { parseZone, replaceOwner, setSerial } from '../parsed-zone.js'
import { respond } from '../responder.js'
import { ZoneIndex } from '../zone-index.js'
import { memoryLog } from './start.js'

/**
 * A record write patches the zone in place. Whatever the
 * sequence of changes (names appearing and going, delegations, wildcards, CNAMEs, the apex), the
 * patched index answers every query byte for byte as an index built from scratch on the same records.
 */

const ZONE = 'inc.test'
const OWNERS = [
  'inc.test',
  'www.inc.test',
  'a.b.inc.test',
  'b.inc.test',
  'sub.inc.test',
  'x.sub.inc.test',
  '*.inc.test',
  '*.w.inc.test',
  'mail.inc.test',
]
const QUERY_NAMES = [
  ...OWNERS.filter((o) => !o.startsWith('*')),
  'nope.inc.test',
  'any.w.inc.test',
  'c.a.b.inc.test',
  'deep.x.sub.inc.test',
  'zz.inc.test',
]
const TYPES = [1, 2, 5, 6, 15, 16, 28, 255]

const record = fc.oneof(
  fc.tuple(fc.constantFrom('A'), fc.integer({ min: 1, max: 9 })).map(([type, n]) => ({ type, content: `192.0.2.${n}`, priority: null })),
  fc.constantFrom(
    { type: 'AAAA', content: '2001:db8::1', priority: null },
    { type: 'TXT', content: 'hello', priority: null },
    { type: 'MX', content: 'mail.inc.test', priority: 10 },
    { type: 'NS', content: 'ns.sub.inc.test', priority: null },
    { type: 'CNAME', content: 'www.inc.test', priority: null },
  ),
)
/** One write: the whole record set of one owner name, as the API leaves it after a create, update or delete. */
const write = fc.tuple(fc.constantFrom(...OWNERS), fc.array(record, { maxLength: 3 }))

function query(name: string, type: number): Buffer {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]))
  return Buffer.concat([Buffer.from([0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, type >> 8, type & 0xff, 0, 1])])
}

/** The SOA the API stores with every authoritative zone (the server never changes it per name). */
const SOA: ZoneRecord = {
  name: ZONE,
  type: 'SOA',
  ttl: 3600,
  content: 'ns1.inc.test hostmaster.inc.test 3600 600 1209600 300',
  priority: null,
}

const asRecords = (owner: string, set: Array<{ type: string; content: string; priority: number | null }>): ZoneRecord[] =>
  set.map((r) => ({ name: owner, type: r.type as ZoneRecord['type'], ttl: 300, content: r.content, priority: r.priority }))

t.test('a patched zone answers exactly as one built from scratch', async (t) => {
  const log = memoryLog()
  fc.assert(
    fc.property(fc.array(write, { minLength: 1, maxLength: 25 }), (writes) => {
      const held = new Map<string, ZoneRecord[]>()
      const zone = parseZone({ name: ZONE, serial: 1, records: [SOA] }, log)!
      const patched = new ZoneIndex([zone])
      writes.forEach(([owner, set], i) => {
        held.set(owner, asRecords(owner, set))
        setSerial(zone, i + 2)
        patched.patch(zone, replaceOwner(zone, owner, held.get(owner)!, log))
        patched.touch()
        // Answer something between writes so caches are filled, then must be dropped.
        respond(patched, query('www.inc.test', 1), true)
      })
      const fresh = new ZoneIndex([
        parseZone({ name: ZONE, serial: writes.length + 1, records: [SOA, ...[...held.values()].flat()] }, log)!,
      ])
      for (const name of QUERY_NAMES) {
        for (const type of TYPES) {
          const a = respond(patched, query(name, type), true)
          const b = respond(fresh, query(name, type), true)
          if (!a || !b || !a.equals(b)) throw new Error(`${name} type ${type} differs after ${JSON.stringify(writes)}`)
        }
      }
      return true
    }),
    { numRuns: 300 },
  )
  t.pass('equal answers')
})

t.test('patchZone refuses a zone it does not hold, so the caller loads it whole', async (t) => {
  const server = createDnsServer({ host: '127.0.0.1', port: 0, log: memoryLog() })
  t.equal(server.patchZone('absent.test', 2, []), false)
  server.setZones([{ name: ZONE, serial: 1, records: [] }])
  t.equal(
    server.patchZone(ZONE, 2, [
      { name: 'www.inc.test', records: asRecords('www.inc.test', [{ type: 'A', content: '192.0.2.1', priority: null }]) },
    ]),
    true,
  )
})
