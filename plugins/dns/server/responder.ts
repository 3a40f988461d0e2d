import { RCODE, answerSections, encodeResponse, referralSections, wildcardTail } from './encode.js'
import { QTYPE } from './records.js'
import { query as q, parseQuery } from './wire.js'
import type { ParsedZone } from './parsed-zone.js'
import type { NameNode, ZoneIndex } from './zone-index.js'

/**
 * Query → response bytes. The hot path (a cached answer) is: parse into a
 * reused struct, hash lookup, one Buffer allocation, two copies (cached
 * response, then the query's question over it to echo its case), ID / RD / CD
 * patch, optional 11-byte OPT. Everything else is assembled from small
 * pre-encoded pieces; dns2 encodes only on a cache miss.
 */

const OPT_LEN = 11
/** What we advertise as our own EDNS receive size (DNS flag day 2020). */
const OUR_UDP_SIZE = 1232
/** Largest UDP response we send whatever the client advertises (docs/api.md; DNS flag day 2020). */
const MAX_UDP = 1232
/** Cache slot of the minimal (UDP) ANY answer, beside the full one kept under QTYPE.ANY for TCP. */
const MINIMAL_ANY = -2
const NO_TAIL = Buffer.alloc(0)
/** qtypes worth caching at a CNAME node (any other qtype is built per query). */
const CACHEABLE = new Set<number>(Object.values(QTYPE))
const AXFR = 252
const DS = 43
const IXFR = 251

function limitFor(tcp: boolean): number {
  if (tcp) return 65535
  return q.edns ? Math.min(Math.max(q.udpSize, 512), MAX_UDP) : 512
}

function writeOpt(out: Buffer, at: number, extendedRcode: number): void {
  out[at] = 0 // root owner
  out.writeUInt16BE(QTYPE.OPT, at + 1)
  out.writeUInt16BE(OUR_UDP_SIZE, at + 3)
  out.writeUInt32BE((extendedRcode << 24) >>> 0, at + 5) // version 0, DO clear: we do not sign
  out.writeUInt16BE(0, at + 9)
}

/**
 * Header + the query's own question + `tail` (records already encoded) + OPT.
 * flags2 low nibble carries the rcode.
 */
function assemble(msg: Buffer, aa: boolean, tc: boolean, rcode: number, counts: number[], tail: Buffer, extRcode = 0): Buffer {
  const optLen = q.edns ? OPT_LEN : 0
  const qLen = q.qEnd - 12
  const out = Buffer.allocUnsafe(12 + qLen + tail.length + optLen)
  out[0] = msg[0]
  out[1] = msg[1]
  out[2] = 0x80 | (msg[2] & 0x78) | (aa ? 0x04 : 0) | (tc ? 0x02 : 0) | (msg[2] & 0x01) // opcode and RD echoed
  out[3] = (msg[3] & 0x10) | (rcode & 0x0f)
  out.writeUInt16BE(1, 4)
  out.writeUInt16BE(counts[0], 6)
  out.writeUInt16BE(counts[1], 8)
  out.writeUInt16BE(counts[2] + (optLen ? 1 : 0), 10)
  msg.copy(out, 12, 12, q.qEnd)
  tail.copy(out, q.qEnd)
  if (optLen) writeOpt(out, q.qEnd + tail.length, extRcode)
  return out
}

const ZERO = [0, 0, 0]
const ONE_NS = [0, 1, 0]

function truncated(msg: Buffer, cached: Buffer): Buffer {
  return assemble(msg, (cached[2] & 0x04) !== 0, true, cached[3] & 0x0f, ZERO, NO_TAIL)
}

/** Sends a fully encoded response (ID 0, lower-case question) for this query. */
function finish(msg: Buffer, cached: Buffer, tcp: boolean): Buffer {
  const optLen = q.edns ? OPT_LEN : 0
  if (cached.length + optLen > limitFor(tcp)) return truncated(msg, cached)
  const out = Buffer.allocUnsafe(cached.length + optLen)
  cached.copy(out, 0)
  out[0] = msg[0]
  out[1] = msg[1]
  out[2] = (cached[2] & 0xfe) | (msg[2] & 0x01)
  out[3] = (cached[3] & 0xef) | (msg[3] & 0x10)
  // Same length as the cached question, so compression pointers stay valid.
  msg.copy(out, 12, 12, q.qEnd)
  if (optLen) {
    writeOpt(out, cached.length, 0)
    out.writeUInt16BE(out.readUInt16BE(10) + 1, 10)
  }
  return out
}

function negative(msg: Buffer, zone: ParsedZone, rcode: number, tcp: boolean): Buffer {
  const out = assemble(msg, true, false, rcode, ONE_NS, zone.negativeTail)
  return out.length > limitFor(tcp) ? assemble(msg, true, true, rcode, ZERO, NO_TAIL) : out
}

/** The lower-case dotted question name, for slow paths only. */
function qname(msg: Buffer): string {
  const parts: string[] = []
  for (let i = 0; i < q.labels; i++) {
    const start = q.labelStart[i]
    parts.push(msg.toString('latin1', start + 1, start + 1 + msg[start]).toLowerCase())
  }
  return parts.join('.')
}

function atNode(index: ZoneIndex, msg: Buffer, node: NameNode, tcp: boolean): Buffer {
  index.fresh(node)
  // DS lives in the parent (RFC 4035 3.1.4.1): at the cut itself the parent answers, and has none.
  if (node.cut === node && q.qtype === DS) return negative(msg, node.zone, RCODE.NOERROR, tcp)
  if (node.cut) {
    let cached = node.cache.get(-1)
    if (!cached) node.cache.set(-1, (cached = encodeResponse(node.name, q.qtype, referralSections(index, node.cut))))
    // The cached referral holds the qtype of its first query: the copied question fixes it.
    return finish(msg, cached, tcp)
  }
  const minimalAny = q.qtype === QTYPE.ANY
  const slot = minimalAny ? MINIMAL_ANY : q.qtype
  const cached = node.cache.get(slot)
  if (cached) return finish(msg, cached, tcp)
  const sections = answerSections(index, node, q.qtype, minimalAny)
  if (!sections) return negative(msg, node.zone, RCODE.NOERROR, tcp)
  const built = encodeResponse(node.name, q.qtype, sections)
  if (CACHEABLE.has(q.qtype)) node.cache.set(slot, built)
  return finish(msg, built, tcp)
}

/** A name covered by `*.<closest encloser>`: synthesised from the wildcard's cached tail. */
function fromWildcard(index: ZoneIndex, msg: Buffer, wild: NameNode, tcp: boolean): Buffer {
  index.fresh(wild)
  // A synthesised CNAME is followed like any other (RFC 4592 2.1.3): per query, the owner is the question.
  if (wild.rrsets.has(QTYPE.CNAME) && q.qtype !== QTYPE.CNAME && q.qtype !== QTYPE.ANY) {
    const name = qname(msg)
    const sections = answerSections(index, { ...wild, name }, q.qtype) as NonNullable<ReturnType<typeof answerSections>>
    return finish(msg, encodeResponse(name, q.qtype, sections), tcp)
  }
  const minimalAny = q.qtype === QTYPE.ANY
  const slot = minimalAny ? MINIMAL_ANY : q.qtype
  let hit = wild.tails.get(slot)
  if (hit === undefined) {
    hit = wildcardTail(index, wild, q.qtype, minimalAny)
    if (CACHEABLE.has(q.qtype)) wild.tails.set(slot, hit)
  }
  if (!hit) return negative(msg, wild.zone, RCODE.NOERROR, tcp)
  const out = assemble(msg, true, false, RCODE.NOERROR, hit.counts, hit.tail)
  return out.length > limitFor(tcp) ? assemble(msg, true, true, RCODE.NOERROR, ZERO, NO_TAIL) : out
}

function lookup(index: ZoneIndex, msg: Buffer, tcp: boolean): Buffer {
  const node = index.find(msg, 12, q.nameEnd, q.suffixHash[0])
  if (node) return atNode(index, msg, node, tcp)
  // Closest existing ancestor: its zone answers NXDOMAIN, a wildcard, or refers below a cut.
  for (let i = 1; i < q.labels; i++) {
    const encloser = index.find(msg, q.labelStart[i], q.nameEnd, q.suffixHash[i])
    if (!encloser) continue
    if (encloser.cut) return finish(msg, encodeResponse(qname(msg), q.qtype, referralSections(index, encloser.cut)), tcp)
    if (encloser.wildcard) return fromWildcard(index, msg, encloser.wildcard, tcp)
    return negative(msg, encloser.zone, RCODE.NXDOMAIN, tcp)
  }
  return assemble(msg, false, false, RCODE.REFUSED, ZERO, NO_TAIL)
}

/**
 * The header and question of a response with TC set and no records: what rate limiting sends in
 * place of an answer, so a real client retries over TCP. Reads the question the query just parsed.
 */
export function truncate(response: Buffer): Buffer {
  const out = Buffer.from(response.subarray(0, q.qEnd))
  out[2] |= 0x02
  out.fill(0, 6, 12)
  return out
}

/**
 * Response bytes for one query, or null to drop it silently. A failure while
 * encoding an answer becomes SERVFAIL (reported through onError) rather than
 * a client left waiting.
 */
export function respond(index: ZoneIndex, msg: Buffer, tcp: boolean, onError?: (err: unknown) => void): Buffer | null {
  if (!parseQuery(msg)) return null
  if (q.edns && q.ednsVersion !== 0) return assemble(msg, false, false, 0, ZERO, NO_TAIL, 1) // BADVERS (RFC 6891 6.1.3)
  if (q.opcode !== 0) return assemble(msg, false, false, RCODE.NOTIMP, ZERO, NO_TAIL)
  if (q.qclass !== 1 || q.qtype === AXFR || q.qtype === IXFR || q.labels === 0) {
    return assemble(msg, false, false, RCODE.REFUSED, ZERO, NO_TAIL)
  }
  try {
    return lookup(index, msg, tcp)
  } catch (err) {
    onError?.(err)
    return assemble(msg, false, false, RCODE.SERVFAIL, ZERO, NO_TAIL)
  }
}
