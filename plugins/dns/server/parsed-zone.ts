import { encodeRecord } from './encode.js'
import { QTYPE, type WireRecord, parseSoa, toWireRecord } from './records.js'
import type { DnsLogger, ZoneData, ZoneRecord } from './types.js'
import { hashName, nameToWire } from './wire.js'
import { shownName } from './log-line.js'

/** One owner name of a zone with its record sets (empty non-terminals have none). */
export interface ParsedName {
  name: string
  wire: Buffer
  hash: number
  /** Changed in place by replaceOwner: the index's node shares this map. */
  rrsets: Map<number, WireRecord[]>
  /** Names directly below this one: an empty name without children is removed (NXDOMAIN, not NODATA). */
  children: number
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
  const created: ParsedName = { name, wire: nameToWire(name), hash: hashName(name), rrsets: new Map(), children: 0 }
  names.set(name, created)
  // Ancestors up to the apex exist as (possibly empty) nodes: NODATA, not NXDOMAIN.
  if (name !== apex) nameFor(names, name.slice(name.indexOf('.') + 1), apex).children++
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
    log.warn(`dns: zone '${shownName(zone.name)}' skipped: not a valid domain name`)
    return null
  }
  const serial = zone.serial >>> 0
  const names = new Map<string, ParsedName>()
  const apex = nameFor(names, name, name)
  for (const record of zone.records) {
    const converted = convert(name, serial, record, log)
    if (converted) add(nameFor(names, converted.owner, name), converted.rr)
  }
  const soa = ensureSoaAndNs(name, serial, apex)
  const parsed: ParsedZone = { name, serial, soa: { ...soa, name }, negativeTail: Buffer.alloc(0), names }
  setNegativeTail(parsed)
  return parsed
}

/** One stored record as wire fields under its owner name, or null (logged) when it cannot be served. */
function convert(zone: string, serial: number, record: ZoneRecord, log: DnsLogger): { owner: string; rr: WireRecord } | null {
  const owner = normaliseName(record.name)
  if ((owner !== zone && !owner.endsWith(`.${zone}`)) || !validDomain(owner) || (record.type === 'SOA' && owner !== zone)) {
    log.warn(`dns: ${shownName(owner)} ${shownName(String(record.type))} skipped: not a valid name of zone ${zone}`)
    return null
  }
  try {
    return { owner, rr: toWireRecord(record, serial) }
  } catch (err) {
    // The content is the user's data: the line names the record and the reason, not what it holds.
    log.warn(`dns: ${shownName(owner)} ${shownName(String(record.type))} skipped: ${(err as Error).message}`)
    return null
  }
}

function add(node: ParsedName, rr: WireRecord): void {
  const set = node.rrsets.get(rr.type)
  if (set && rr.type !== QTYPE.SOA) set.push(rr)
  else node.rrsets.set(rr.type, [rr])
}

/** RFC 2308 section 3: negative answers carry the SOA with TTL min(SOA TTL, minimum). */
function setNegativeTail(zone: ParsedZone): void {
  zone.negativeTail = encodeRecord({ ...zone.soa, ttl: Math.min(zone.soa.ttl, zone.soa.minimum as number) })
}

/** What one owner's replacement did to the zone's names, for the index to follow. */
export interface OwnerChange {
  /** Names that now exist and did not (the owner, empty ancestors), shortest first. */
  added: ParsedName[]
  /** Names that no longer exist (the owner, ancestors left empty), longest first. */
  removed: ParsedName[]
  /** Whether the owner gained or lost an NS set below the apex (a delegation cut moved). */
  cutChanged: boolean
}

/**
 * Replaces every record of one owner name with `records` (all of that name's records as stored),
 * in place: the cost is that name's records, not the zone's. SOA is the server's own: never here.
 */
export function replaceOwner(zone: ParsedZone, ownerName: string, records: ZoneRecord[], log: DnsLogger): OwnerChange {
  const owner = normaliseName(ownerName)
  const chain: string[] = [] // the owner and its ancestors up to the apex
  for (let name = owner; name.endsWith(zone.name); name = name.slice(name.indexOf('.') + 1)) {
    chain.push(name)
    if (name === zone.name) break
  }
  const existed = new Set(chain.filter((name) => zone.names.has(name)))
  const node = zone.names.get(owner)
  const hadNs = node?.rrsets.has(QTYPE.NS) ?? false
  const keep = owner === zone.name ? node?.rrsets.get(QTYPE.SOA) : undefined
  node?.rrsets.clear()
  if (keep) node?.rrsets.set(QTYPE.SOA, keep)
  for (const record of records) {
    if (record.type === 'SOA') continue
    const converted = convert(zone.name, zone.serial, record, log)
    if (converted && converted.owner === owner) add(nameFor(zone.names, owner, zone.name), converted.rr)
  }
  if (owner === zone.name) ensureSoaAndNs(zone.name, zone.serial, zone.names.get(owner) as ParsedName)
  const removed: ParsedName[] = []
  // An owner left empty and childless goes, then each ancestor it leaves empty and childless.
  for (let name = owner; name !== zone.name; name = name.slice(name.indexOf('.') + 1)) {
    const current = zone.names.get(name)
    if (!current || current.rrsets.size > 0 || current.children > 0) break
    zone.names.delete(name)
    removed.push(current)
    const parent = zone.names.get(name.slice(name.indexOf('.') + 1))
    if (parent) parent.children--
  }
  const added = chain
    .filter((name) => !existed.has(name) && zone.names.has(name))
    .reverse()
    .map((name) => zone.names.get(name) as ParsedName)
  const hasNs = zone.names.get(owner)?.rrsets.has(QTYPE.NS) ?? false
  return { added, removed, cutChanged: owner !== zone.name && hadNs !== hasNs }
}

/** A new serial: the SOA record and the negative answers' SOA follow it. */
export function setSerial(zone: ParsedZone, serial: number): void {
  const value = serial >>> 0
  zone.serial = value
  zone.soa = { ...zone.soa, serial: value }
  const apex = zone.names.get(zone.name) as ParsedName
  const [soa] = apex.rrsets.get(QTYPE.SOA) ?? []
  if (soa) apex.rrsets.set(QTYPE.SOA, [{ ...soa, serial: value }])
  setNegativeTail(zone)
}
