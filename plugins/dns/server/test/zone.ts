import type { ZoneData, ZoneRecord } from '../index.js'

const rr = (name: string, type: ZoneRecord['type'], content: string, priority: number | null = null, ttl = 300): ZoneRecord => ({
  name,
  type,
  ttl,
  content,
  priority,
})

/** One record of every served type, plus names for chasing, additionals and delegation. */
export function exampleZone(serial = 2026112201): ZoneData {
  return {
    name: 'example.test',
    serial,
    records: [
      rr('example.test', 'NS', 'ns1.example.test', null, 3600),
      rr('example.test', 'NS', 'ns2.example.test', null, 3600),
      rr('ns1.example.test', 'A', '192.0.2.53'),
      rr('ns2.example.test', 'A', '192.0.2.54'),
      rr('example.test', 'A', '192.0.2.1'),
      rr('www.example.test', 'A', '192.0.2.10'),
      rr('www.example.test', 'AAAA', '2001:db8::10'),
      rr('example.test', 'MX', 'mail.example.test', 10),
      rr('example.test', 'MX', 'mx2.example.test.', 20),
      rr('mail.example.test', 'A', '192.0.2.25'),
      rr('mail.example.test', 'AAAA', '2001:db8::25'),
      rr('mx2.example.test', 'A', '192.0.2.26'),
      rr('example.test', 'TXT', 'v=spf1 mx -all'),
      rr('long.example.test', 'TXT', 'a'.repeat(300)),
      rr('_sip._tcp.example.test', 'SRV', '5 5060 mail.example.test', 1),
      rr('example.test', 'CAA', '0 issue "letsencrypt.org"'),
      rr('alias.example.test', 'CNAME', 'www.example.test'),
      rr('chain.example.test', 'CNAME', 'alias.example.test'),
      rr('dangling.example.test', 'CNAME', 'missing.example.test'),
      rr('outside.example.test', 'CNAME', 'www.elsewhere.invalid'),
      rr('a.b.deep.example.test', 'A', '192.0.2.99'),
      rr('sub.example.test', 'NS', 'ns.sub.example.test'),
      rr('ns.sub.example.test', 'A', '192.0.2.77'),
      // 40 TXT records of 60 bytes: ~2.8 kB of answer, over 512 and 1232 bytes.
      ...Array.from({ length: 40 }, (_, i) => rr('big.example.test', 'TXT', `${String(i).padStart(2, '0')}-${'z'.repeat(57)}`)),
    ],
  }
}
