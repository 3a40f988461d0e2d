import { encodeRecord } from './encode.js'
import { QTYPE, type WireRecord, parseSoa, toWireRecord } from './records.js'
import type { DnsLogger, ZoneData } from './types.js'
import { hashName, nameToWire } from './wire.js'

/** One owner name of a zone with its record sets (empty non-terminals have none). */
export interface ParsedName {
  name: string
  wire: Buffer
  hash: number
  rrsets: Map<number, WireRecord[]>
}

/**
 * One zone converted to wire-ready records, once per putZone: the index
 * rebuilt after a change in another zone reuses it as is.
 */
export interface ParsedZone {
  name: string
  serial: number
  soa: WireRecord & { name: string }
  /** SOA record for negative answers, uncompressed so it can follow any question. */
  negativeTail: Buffer
  names: Map<string, ParsedName>
}

export const normaliseName = (name: string): string => name.trim().toLowerCase().replace(/\.$/, '')

export function validDomain(name: string): boolean {
  if (name.length > 253) return false
  return name.split('.').every((l) => l.length > 0 && l.length <= 63)
}

function nameFor(names: Map<string, ParsedName>, name: string, apex: string): ParsedName {
  const existing = names.get(name)
  if (existing) return existing
  const created: ParsedName = { name, wire: nameToWire(name), hash: hashName(name), rrsets: new Map() }
  names.set(name, created)
  // Ancestors up to the apex exist as (possibly empty) nodes: NODATA, not NXDOMAIN.
  if (name !== apex) nameFor(names, name.slice(name.indexOf('.') + 1), apex)
  return created
}

/** Synthesises SOA / apex NS when the caller gave none (documented in types.ts). */
function ensureSoaAndNs(zone: string, serial: number, apex: ParsedName): WireRecord {
  const ns = apex.rrsets.get(QTYPE.NS)
  let soa = apex.rrsets.get(QTYPE.SOA)?.[0]
  if (!soa) {
    const primary = (ns?.[0]?.ns as string | undefined) ?? `ns1.${zone}`
    const fields = parseSoa(`${primary} hostmaster.${zone} 3600 600 1209600 300`)
    soa = { type: QTYPE.SOA, class: 1, ttl: 3600, ...fields, serial }
    apex.rrsets.set(QTYPE.SOA, [soa])
  }
  if (!ns) apex.rrsets.set(QTYPE.NS, [{ type: QTYPE.NS, class: 1, ttl: soa.ttl, ns: soa.primary }])
  return soa
}

/** Null when the zone name itself is unusable (logged). Bad records are skipped with a warning. */
export function parseZone(zone: ZoneData, log: DnsLogger): ParsedZone | null {
  const name = normaliseName(zone.name)
  if (!validDomain(name)) {
    log.warn(`dns: zone '${zone.name}' skipped: not a valid domain name`)
    return null
  }
  const serial = zone.serial >>> 0
  const names = new Map<string, ParsedName>()
  const apex = nameFor(names, name, name)
  for (const record of zone.records) {
    const owner = normaliseName(record.name)
    if ((owner !== name && !owner.endsWith(`.${name}`)) || !validDomain(owner) || (record.type === 'SOA' && owner !== name)) {
      log.warn(`dns: ${owner} ${record.type} skipped: not a valid name of zone ${name}`)
      continue
    }
    let rr: WireRecord
    try {
      rr = toWireRecord(record, serial)
    } catch (err) {
      log.warn(`dns: ${owner} ${record.type} '${record.content}' skipped: ${(err as Error).message}`)
      continue
    }
    const node = nameFor(names, owner, name)
    const set = node.rrsets.get(rr.type)
    if (set && rr.type !== QTYPE.SOA) set.push(rr)
    else node.rrsets.set(rr.type, [rr])
  }
  const soa = ensureSoaAndNs(name, serial, apex)
  // RFC 2308 section 3: negative answers carry the SOA with TTL min(SOA TTL, minimum).
  const negativeTail = encodeRecord({ ...soa, name, ttl: Math.min(soa.ttl, soa.minimum as number) })
  return { name, serial, soa: { ...soa, name }, negativeTail, names }
}
