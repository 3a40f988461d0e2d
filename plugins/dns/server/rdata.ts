import { isIPv4, isIPv6 } from 'node:net'

/**
 * Record data rules the API and the server share, so that what the API accepts is what the server
 * can put on the wire.
 */

/**
 * TXT content → the record's text. Content pasted in presentation form, one or more quoted
 * character-strings (`"v=DKIM1; k=rsa; " "p=MIIB..."`, with \" \\ and \DDD escapes), becomes the text
 * those strings spell, joined; anything else is the text itself. Null when quoted strings spell bytes
 * that are not UTF-8 text. One left-to-right scan.
 */
export function txtText(content: string): string | null {
  if (!content.trimStart().startsWith('"')) return content
  const bytes: number[] = []
  let i = 0
  for (;;) {
    while (i < content.length && (content[i] === ' ' || content[i] === '\t')) i++
    if (i >= content.length) break
    if (content[i] !== '"') return content // not presentation form after all: plain text
    i++
    for (;;) {
      if (i >= content.length) return content // unterminated: plain text
      const c = content.charCodeAt(i)
      if (c === 0x22) {
        i++
        break
      }
      if (c === 0x5c) {
        const d = content.slice(i + 1, i + 4)
        if (/^\d{3}$/.test(d) && Number(d) <= 255) {
          bytes.push(Number(d))
          i += 4
          continue
        }
        i++
        if (i >= content.length) return content
      }
      const cp = content.codePointAt(i) as number
      const char = String.fromCodePoint(cp)
      for (const b of Buffer.from(char, 'utf8')) bytes.push(b)
      i += char.length
    }
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes))
  } catch {
    return null
  }
}

/** TXT text → character-strings of at most 255 bytes (RFC 1035 3.3.14), never splitting a UTF-8 character. */
export function splitTxt(text: string): Buffer[] {
  const all = Buffer.from(text, 'utf8')
  if (all.length === 0) return [Buffer.alloc(0)]
  const parts: Buffer[] = []
  let start = 0
  while (start < all.length) {
    let end = Math.min(start + 255, all.length)
    // Back off continuation bytes (10xxxxxx) so the cut falls before a character's first byte.
    if (end < all.length) while (end > start && (all[end] & 0xc0) === 0x80) end--
    parts.push(all.subarray(start, end))
    start = end
  }
  return parts
}

/** An IPv6 address in RFC 5952 form (lower case, longest zero run compressed, IPv4 tail in hex), or null. */
export function canonicalIPv6(address: string): string | null {
  if (!isIPv6(address)) return null
  let text = address.toLowerCase()
  const dotted = text.lastIndexOf(':')
  const tail = text.slice(dotted + 1)
  if (isIPv4(tail)) {
    const [a, b, c, d] = tail.split('.').map(Number)
    text = `${text.slice(0, dotted + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, rest] = text.split('::')
  const left = head ? head.split(':') : []
  const right = rest ? rest.split(':') : []
  const groups = rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
  const values = groups.map((g) => Number.parseInt(g, 16).toString(16))
  let best = { at: -1, len: 1 }
  for (let i = 0; i < 8;) {
    if (values[i] !== '0') {
      i++
      continue
    }
    let j = i
    while (j < 8 && values[j] === '0') j++
    if (j - i > best.len) best = { at: i, len: j - i }
    i = j
  }
  if (best.at < 0) return values.join(':')
  return `${values.slice(0, best.at).join(':')}::${values.slice(best.at + best.len).join(':')}`
}
