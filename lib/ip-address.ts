import { isIPv4, isIPv6 } from 'node:net'

/**
 * IPv6 addresses as bytes, and the IPv4 addresses some of them carry: what both the outbound-address
 * policy (an IPv4 address hidden in an IPv6 form is judged as that IPv4 address) and the client
 * prefixes (a dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d) rely on. One pass over at
 * most 45 characters.
 */

/** 16 bytes of an IPv6 address, or null when `address` is not one (a zone id `%eth0` is ignored). */
export function ipv6Bytes(address: string): Uint8Array | null {
  const text = address.split('%')[0] as string
  if (!isIPv6(text)) return null
  const out = new Uint8Array(16)
  const [head = '', tail] = text.split('::')
  const groups = (part: string): number[] => {
    if (!part) return []
    const words: number[] = []
    for (const piece of part.split(':')) {
      if (piece.includes('.')) {
        const [a = 0, b = 0, c = 0, d = 0] = piece.split('.').map(Number)
        words.push((a << 8) | b, (c << 8) | d)
      } else words.push(Number.parseInt(piece, 16))
    }
    return words
  }
  const left = groups(head)
  const right = tail === undefined ? [] : groups(tail)
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
  words.forEach((word, i) => {
    out[i * 2] = word >> 8
    out[i * 2 + 1] = word & 0xff
  })
  return out
}

/** The IPv4 address an IPv4-mapped IPv6 address carries; any other address unchanged. */
export function unmapped(address: string): string {
  if (isIPv4(address) || !address.includes('.')) return address
  const bytes = ipv6Bytes(address)
  return (bytes && mappedIPv4(bytes)) ?? address
}

const dotted = (b: Uint8Array, from: number) => `${b[from]}.${b[from + 1]}.${b[from + 2]}.${b[from + 3]}`
const zeros = (b: Uint8Array, from: number, to: number) => b.subarray(from, to).every((x) => x === 0)

/** The IPv4 address of an IPv4-mapped IPv6 address (::ffff:a.b.c.d), or null. */
export function mappedIPv4(b: Uint8Array): string | null {
  return zeros(b, 0, 10) && b[10] === 0xff && b[11] === 0xff ? dotted(b, 12) : null
}

/** The IPv4 address an IPv6 address carries where it can be read: mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16); or null. */
export function embeddedIPv4(b: Uint8Array): string | null {
  const mapped = mappedIPv4(b)
  if (mapped) return mapped
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(b, 4, 12)) return dotted(b, 12)
  if (b[0] === 0x20 && b[1] === 0x02) return dotted(b, 2)
  return null
}
