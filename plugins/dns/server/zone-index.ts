import { encodeRecord } from './encode.js'
import { QTYPE, type WireRecord, parseSoa, toWireRecord } from './records.js'
import type { DnsLogger, ZoneData } from './types.js'
import { hashName, nameEquals, nameToWire } from './wire.js'

/** One owner name of an authoritative zone (empty non-terminals included). */
export interface NameNode {
  name: string
  wire: Buffer
  zone: ZoneEntry
  rrsets: Map<number, WireRecord[]>
  /** Delegation point (NS below the apex) at or above this name, if any. */
  cut: NameNode | null
  /** Pre-encoded responses by qtype (ID 0, lower-case question, no OPT). */
  cache: Map<number, Buffer>
  /** Next node with the same 32-bit hash. */
  next: NameNode | null
}

export interface ZoneEntry {
  name: string
  serial: number
  apex: NameNode
  soa: WireRecord & { name: string }
  /** SOA record for negative answers, uncompressed so it can follow any question. */
  negativeTail: Buffer
}

const normaliseName = (name: string): string => name.trim().toLowerCase().replace(/\.$/, '')

function validOwner(name: string): boolean {
  if (name.length > 253) return false
  return name.split('.').every((l) => l.length > 0 && l.length <= 63)
}

/**
 * Immutable index of every authoritative zone. Each change builds a new one
 * (O(names); cached responses belong to their generation, so an answer can
 * never outlive the data it came from) and the server swaps the reference.
 */
export class ZoneIndex {
  readonly zones = new Map<string, ZoneEntry>()
  private readonly table = new Map<number, NameNode>()
  private readonly byName = new Map<string, NameNode>()

  constructor(zones: Iterable<ZoneData>, log: DnsLogger) {
    // Last one wins when a zone name is given twice.
    const byZone = new Map([...zones].map((z) => [normaliseName(z.name), { ...z, name: normaliseName(z.name) }]))
    const list = [...byZone.values()]
    const zoneNames = new Set(byZone.keys())
    for (const zone of list) this.addZone(zone, zoneNames, log)
    for (const node of [...this.byName.values()].sort((a, b) => a.name.length - b.name.length)) this.link(node)
  }

  /** Node for a name given as wire bytes of `msg` [start, end) with its precomputed hash. */
  find(msg: Buffer, start: number, end: number, hash: number): NameNode | null {
    for (let node = this.table.get(hash) ?? null; node; node = node.next) {
      if (nameEquals(msg, start, end, node.wire)) return node
    }
    return null
  }

  node(name: string): NameNode | null {
    return this.byName.get(name) ?? null
  }

  private addZone(zone: ZoneData, zoneNames: Set<string>, log: DnsLogger): void {
    if (!validOwner(zone.name)) {
      log.warn(`dns: zone '${zone.name}' skipped: not a valid domain name`)
      return
    }
    const entry = { name: zone.name, serial: zone.serial >>> 0 } as ZoneEntry
    const apex = this.nodeFor(zone.name, entry)
    entry.apex = apex
    for (const record of zone.records) {
      const owner = normaliseName(record.name)
      const inZone = owner === zone.name || owner.endsWith(`.${zone.name}`)
      if (!inZone || !validOwner(owner) || this.owningZone(owner, zoneNames) !== zone.name) {
        log.debug(`dns: ${owner} ${record.type} not served by zone ${zone.name} (outside it or in a child zone)`)
        continue
      }
      if (record.type === 'SOA' && owner !== zone.name) continue
      let rr: WireRecord
      try {
        rr = toWireRecord(record, zone.serial)
      } catch (err) {
        log.warn(`dns: ${owner} ${record.type} '${record.content}' skipped: ${(err as Error).message}`)
        continue
      }
      const node = this.nodeFor(owner, entry)
      const set = node.rrsets.get(rr.type)
      if (rr.type === QTYPE.SOA) node.rrsets.set(rr.type, [rr])
      else if (set) set.push(rr)
      else node.rrsets.set(rr.type, [rr])
    }
    this.ensureSoaAndNs(entry)
    this.zones.set(zone.name, entry)
  }

  /** Synthesises SOA / apex NS when the caller gave none (documented in types.ts). */
  private ensureSoaAndNs(entry: ZoneEntry): void {
    const apex = entry.apex
    const ns = apex.rrsets.get(QTYPE.NS)
    let soa = apex.rrsets.get(QTYPE.SOA)?.[0]
    if (!soa) {
      const primary = (ns?.[0]?.ns as string | undefined) ?? `ns1.${entry.name}`
      const fields = parseSoa(`${primary} hostmaster.${entry.name} 3600 600 1209600 300`)
      soa = { type: QTYPE.SOA, class: 1, ttl: 3600, ...fields, serial: entry.serial }
      apex.rrsets.set(QTYPE.SOA, [soa])
    }
    if (!ns) apex.rrsets.set(QTYPE.NS, [{ type: QTYPE.NS, class: 1, ttl: soa.ttl, ns: soa.primary }])
    entry.soa = { ...soa, name: entry.name }
    // RFC 2308 section 3: negative answers carry the SOA with TTL min(SOA TTL, minimum).
    const negativeTtl = Math.min(soa.ttl, soa.minimum as number)
    entry.negativeTail = encodeRecord({ ...soa, name: entry.name, ttl: negativeTtl })
  }

  /** The most specific zone holding `name`, so a child zone occludes its parent's records. */
  private owningZone(name: string, zoneNames: Set<string>): string | null {
    let suffix = name
    for (;;) {
      if (zoneNames.has(suffix)) return suffix
      const dot = suffix.indexOf('.')
      if (dot < 0) return null
      suffix = suffix.slice(dot + 1)
    }
  }

  /** Gets or creates the node for `name` and every ancestor up to the apex. */
  private nodeFor(name: string, zone: ZoneEntry): NameNode {
    const existing = this.byName.get(name)
    if (existing) return existing
    const node: NameNode = { name, wire: nameToWire(name), zone, rrsets: new Map(), cut: null, cache: new Map(), next: null }
    this.byName.set(name, node)
    const hash = hashName(name)
    node.next = this.table.get(hash) ?? null
    this.table.set(hash, node)
    if (name !== zone.name) this.nodeFor(name.slice(name.indexOf('.') + 1), zone)
    return node
  }

  /** Inherits the delegation cut from the parent (called shortest names first). */
  private link(node: NameNode): void {
    if (node === node.zone.apex) return
    const parent = this.byName.get(node.name.slice(node.name.indexOf('.') + 1))
    node.cut = parent?.cut ?? (node.rrsets.has(QTYPE.NS) ? node : null)
  }
}
