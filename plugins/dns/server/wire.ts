/**
 * Zero-allocation query parsing for the hot path. dns2's Packet.parse reads
 * bit by bit and builds objects per query (~10k q/s ceiling); here the header,
 * question and OPT record are read straight from the Buffer into one reused
 * struct, and the name is hashed label by label from the right so every
 * suffix's hash (for the zone / closest-encloser walk) comes for free.
 */

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193
const MAX_LABELS = 127

/** ASCII-only case fold: DNS names compare case-insensitively on A-Z only. */
const fold = (b: number): number => (b >= 65 && b <= 90 ? b | 0x20 : b)

/** Hash of a lower-case dotted name, matching parseQuery's suffix hashes (labels are latin1 bytes). */
export function hashName(name: string): number {
  let h = FNV_OFFSET
  let end = name.length
  // Labels right to left, each label's length byte then its bytes.
  for (let start = name.lastIndexOf('.', end - 1); end > 0; start = name.lastIndexOf('.', end - 1)) {
    h = Math.imul(h ^ (end - start - 1), FNV_PRIME)
    for (let j = start + 1; j < end; j++) h = Math.imul(h ^ fold(name.charCodeAt(j) & 0xff), FNV_PRIME)
    end = start
  }
  return h >>> 0
}

/** Lower-case wire form of a dotted name (labels + root byte). */
export function nameToWire(name: string): Buffer {
  const out = Buffer.allocUnsafe(name.length + (name === '' ? 1 : 2)) // pooled; every byte is written below
  let p = 0
  for (const label of name === '' ? [] : name.split('.')) {
    out[p++] = label.length
    for (let i = 0; i < label.length; i++) out[p++] = fold(label.charCodeAt(i) & 0xff)
  }
  out[p] = 0
  return out
}

/** The parsed query; one instance reused for every packet (single thread). */
export const query = {
  opcode: 0,
  /** offset just past the question's root label. */
  nameEnd: 0,
  /** offset just past qtype/qclass. */
  qEnd: 0,
  qtype: 0,
  qclass: 0,
  labels: 0,
  edns: false,
  udpSize: 512,
  ednsVersion: 0,
  /** suffixHash[i] = hash of the name made of labels i..end; [labels] = root. */
  suffixHash: new Uint32Array(MAX_LABELS + 1),
  labelStart: new Int32Array(MAX_LABELS + 1),
}

/** Skips a (possibly compressed) owner name of a record after the question; -1 if malformed. */
function skipName(msg: Buffer, p: number): number {
  for (let guard = 0; guard <= MAX_LABELS; guard++) {
    if (p >= msg.length) return -1
    const len = msg[p]
    if (len === 0) return p + 1
    if ((len & 0xc0) === 0xc0) return p + 2 <= msg.length ? p + 2 : -1
    if (len > 63) return -1
    p += len + 1
  }
  return -1
}

/** Reads additional records looking for OPT; false when the packet is malformed. */
function readRecords(msg: Buffer, p: number, count: number, arStart: number): boolean {
  const q = query
  for (let i = 0; i < count; i++) {
    p = skipName(msg, p)
    if (p < 0 || p + 10 > msg.length) return false
    const type = msg.readUInt16BE(p)
    const rdlen = msg.readUInt16BE(p + 8)
    if (i >= arStart && type === 41) {
      if (q.edns) return false // two OPT records: FORMERR territory, drop
      q.edns = true
      q.udpSize = msg.readUInt16BE(p + 2)
      q.ednsVersion = msg[p + 5]
    }
    p += 10 + rdlen
    if (p > msg.length) return false
  }
  return true
}

/**
 * Parses header + question + OPT into `query`. Returns false for anything
 * that must be dropped silently: responses (QR set), no single question,
 * compression or bad labels in the question, truncated packets.
 */
export function parseQuery(msg: Buffer): boolean {
  const q = query
  const len = msg.length
  if (len < 17 || len > 65535) return false
  if (msg[2] & 0x80) return false
  if (msg[4] !== 0 || msg[5] !== 1) return false
  q.opcode = (msg[2] >> 3) & 0x0f
  let p = 12
  let n = 0
  for (;;) {
    if (p >= len) return false
    const l = msg[p]
    if (l === 0) break
    // No compression is possible in the first name of a message; a pointer
    // here is garbage (or a loop attempt).
    if (l > 63 || n === MAX_LABELS) return false
    q.labelStart[n++] = p
    p += l + 1
    if (p - 12 > 254) return false
  }
  q.nameEnd = p + 1
  q.qEnd = q.nameEnd + 4
  if (q.qEnd > len) return false
  q.qtype = msg.readUInt16BE(q.nameEnd)
  q.qclass = msg.readUInt16BE(q.nameEnd + 2)
  q.labels = n
  let h = FNV_OFFSET
  q.suffixHash[n] = h >>> 0
  for (let i = n - 1; i >= 0; i--) {
    const start = q.labelStart[i]
    const end = start + msg[start] + 1
    for (let j = start; j < end; j++) h = Math.imul(h ^ fold(msg[j]), FNV_PRIME)
    q.suffixHash[i] = h >>> 0
  }
  q.edns = false
  q.udpSize = 512
  q.ednsVersion = 0
  const an = msg.readUInt16BE(6)
  const ns = msg.readUInt16BE(8)
  const ar = msg.readUInt16BE(10)
  if (an + ns + ar === 0) return true
  return readRecords(msg, q.qEnd, an + ns + ar, an + ns)
}

/** Case-insensitive compare of the query's name bytes with a stored lower-case wire name. */
export function nameEquals(msg: Buffer, start: number, end: number, wire: Buffer): boolean {
  if (end - start !== wire.length) return false
  for (let i = 0; i < wire.length; i++) if (fold(msg[start + i]) !== wire[i]) return false
  return true
}
