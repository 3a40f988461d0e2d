import dns2 from 'dns2'
import { ByteWriter } from './byte-writer.js'
import { QTYPE, type WireRecord, targetOf } from './records.js'
import type { NameNode, WildcardTail, ZoneIndex } from './zone-index.js'

/**
 * Response building with dns2's Packet codec (name compression included).
 * It runs once per (name, qtype) per index generation: the result is cached
 * on the node and later queries only patch ID, flags and question case. So
 * dns2's bit-by-bit writer stays off the per-packet path.
 */

type Rr = WireRecord & { name: string }

interface Dns2Packet {
  header: Record<string, number>
  questions: { name: string; type: number; class: number }[]
  answers: Rr[]
  authorities: Rr[]
  additionals: Rr[]
  toBuffer(writer?: ByteWriter): Buffer
}

const { Packet } = dns2 as unknown as {
  Packet: {
    new (): Dns2Packet
    Resource: { encode(rr: Rr, writer?: ByteWriter): Buffer }
  }
}

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const

/** Owner-less resource records of one node's rrset, named. */
const named = (node: NameNode, type: number): Rr[] => (node.rrsets.get(type) ?? []).map((rr) => ({ ...rr, name: node.name }))

/** One record without compression: position-independent bytes (negative-answer SOA). */
export function encodeRecord(rr: Rr): Buffer {
  return Buffer.from(Packet.Resource.encode(rr, new ByteWriter()))
}

export interface Section {
  rcode: number
  aa: boolean
  answers: Rr[]
  authorities: Rr[]
  additionals: Rr[]
}

export function encodeResponse(qname: string, qtype: number, s: Section): Buffer {
  const packet = new Packet()
  packet.header = { id: 0, qr: 1, opcode: 0, aa: s.aa ? 1 : 0, tc: 0, rd: 0, ra: 0, z: 0, ad: 0, cd: 0, rcode: s.rcode }
  packet.questions = [{ name: qname, type: qtype, class: 1 }]
  packet.answers = s.answers
  packet.authorities = s.authorities
  packet.additionals = s.additionals
  return Buffer.from(packet.toBuffer(new ByteWriter())) // exact-size copy of the writer's view
}

/** A/AAAA of MX/SRV/NS targets we hold, for the additional section. */
function glue(index: ZoneIndex, records: Rr[]): Rr[] {
  const out: Rr[] = []
  const seen = new Set<string>()
  for (const rr of records) {
    const target = targetOf(rr)
    if (!target || seen.has(target)) continue
    seen.add(target)
    const node = index.node(target)
    if (node) out.push(...named(node, QTYPE.A), ...named(node, QTYPE.AAAA))
  }
  return out
}

const MAX_CHAIN = 8

/**
 * For a name without a node: the delegation it falls under (the caller stops
 * there), or its wildcard's records owned by that name (RFC 4592), or null.
 */
function covering(index: ZoneIndex, name: string): NameNode | null {
  for (let suffix = name; suffix.includes('.');) {
    suffix = suffix.slice(suffix.indexOf('.') + 1)
    const encloser = index.node(suffix)
    if (!encloser) continue
    if (encloser.cut) return encloser.cut
    return encloser.wildcard ? { ...encloser.wildcard, name } : null
  }
  return null
}

/**
 * Sections of an authoritative answer at an existing node, or null when it
 * is plain NODATA (the caller answers that from the zone's negative tail).
 */
export function answerSections(index: ZoneIndex, node: NameNode, qtype: number, minimalAny = false): Section | null {
  if (qtype === QTYPE.ANY) {
    const answers = anyAnswer(node, minimalAny)
    return answers.length ? { rcode: RCODE.NOERROR, aa: true, answers, authorities: [], additionals: glue(index, answers) } : null
  }
  if (node.rrsets.has(qtype)) {
    const answers = named(node, qtype)
    return { rcode: RCODE.NOERROR, aa: true, answers, authorities: [], additionals: glue(index, answers) }
  }
  if (!node.rrsets.has(QTYPE.CNAME)) return null
  // Chase the CNAME chain inside the zone (RFC 1034 4.3.2 step 3a).
  const zone = node.zone
  const answers: Rr[] = []
  const visited = new Set<string>()
  let current: NameNode = node
  for (let hop = 0; hop < MAX_CHAIN; hop++) {
    visited.add(current.name)
    const cname = named(current, QTYPE.CNAME)[0]
    answers.push(cname)
    const target = cname.domain as string
    const next = index.node(target) ?? covering(index, target)
    const inZone = target === zone.name || target.endsWith(`.${zone.name}`)
    if (!inZone || (next && next.zone !== zone)) break
    // A target below a delegation: the CNAME, then the referral to it (RFC 1034 4.3.2 step 3b).
    if (next?.cut) return { ...referralSections(index, next.cut), aa: true, answers }
    // RFC 2308 section 3: the SOA of a negative answer carries min(SOA TTL, MINIMUM), after a CNAME too.
    const negative = { aa: true, answers, authorities: [negativeSoa(zone)], additionals: [] }
    if (!next) return { ...negative, rcode: RCODE.NXDOMAIN }
    if (next.rrsets.has(qtype)) {
      const found = named(next, qtype)
      answers.push(...found)
      return { rcode: RCODE.NOERROR, aa: true, answers, authorities: [], additionals: glue(index, found) }
    }
    if (!next.rrsets.has(QTYPE.CNAME) || visited.has(next.name)) return { ...negative, rcode: RCODE.NOERROR }
    current = next
  }
  return { rcode: RCODE.NOERROR, aa: true, answers, authorities: [], additionals: [] }
}

/** The SOA as negative answers carry it. */
function negativeSoa(zone: NameNode['zone']): Rr {
  return { ...zone.soa, ttl: Math.min(zone.soa.ttl, zone.soa.minimum as number) }
}

/**
 * QTYPE ANY: every RRset, or over UDP one RRset only (RFC 8482 4.1: the lowest type present), so a
 * 50-byte query cannot be turned into a multi-kilobyte answer aimed at a spoofed source.
 */
function anyAnswer(node: NameNode, minimal: boolean): Rr[] {
  const types = [...node.rrsets.keys()].filter((t) => (node.rrsets.get(t)?.length ?? 0) > 0)
  if (!minimal) return types.flatMap((t) => named(node, t))
  return types.length ? named(node, Math.min(...types)) : []
}

/** Referral to a delegated child: not authoritative, NS in authority, glue. */
export function referralSections(index: ZoneIndex, cut: NameNode): Section {
  const ns = named(cut, QTYPE.NS)
  return { rcode: RCODE.NOERROR, aa: false, answers: [], authorities: ns, additionals: glue(index, ns) }
}

/** Compression pointer to offset 12: the question name, whatever the query asked. */
const POINTER_TO_QNAME = Buffer.from([0xc0, 0x0c])

/**
 * Records synthesised from a wildcard node (RFC 4592): the owner is a
 * pointer to the question, so one tail serves every name the wildcard
 * covers. Rdata names are not compressed (the bytes must not depend on the
 * question). A CNAME at the wildcard is returned, not chased. Null = NODATA.
 */
export function wildcardTail(index: ZoneIndex, wild: NameNode, qtype: number, minimalAny = false): WildcardTail | null {
  let answers: Rr[]
  if (qtype === QTYPE.ANY) answers = anyAnswer(wild, minimalAny)
  else if (wild.rrsets.has(qtype)) answers = named(wild, qtype)
  else answers = named(wild, QTYPE.CNAME)
  if (answers.length === 0) return null
  const extra = glue(index, answers)
  // Encoded with the root as owner (one 0 byte), which is then swapped for the pointer.
  const parts = answers.map((rr) => Buffer.concat([POINTER_TO_QNAME, encodeRecord({ ...rr, name: '' }).subarray(1)]))
  return { tail: Buffer.concat([...parts, ...extra.map(encodeRecord)]), counts: [answers.length, 0, extra.length] }
}
