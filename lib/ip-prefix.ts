import { isIPv4, isIPv6 } from 'node:net'

/**
 * Client addresses grouped into the networks one party controls. Counting per single IPv6 address is
 * useless against anyone holding a /64 (2^64 addresses to rotate through), and counting per IPv4 /24
 * would put a whole neighbourhood's NAT in one bucket; callers choose the widths. IPv4-mapped IPv6
 * addresses (::ffff:192.0.2.1, what a dual-stack socket reports for an IPv4 peer) count as the IPv4
 * address they carry. Parsing is one pass over at most 45 characters.
 */
export interface PrefixBits {
  v4: number
  v6: number
}

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
  if (!bytes || bytes.subarray(0, 10).some((b) => b !== 0) || bytes[10] !== 0xff || bytes[11] !== 0xff) return address
  return `${bytes[12]}.${bytes[13]}.${bytes[14]}.${bytes[15]}`
}

function masked(bytes: Uint8Array, bits: number): Uint8Array {
  const out = new Uint8Array(bytes)
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8))
    out[i] = (out[i] as number) & ((0xff << (8 - keep)) & 0xff)
  }
  return out
}

/**
 * The network `address` belongs to, as a key: `192.0.2.0/24`, `2001:db8:0:1::/64` (groups in hex,
 * uncompressed but for the zero tail). Anything that is not an IP address is returned as it is, so a
 * caller's key never collides with a real network's.
 */
export function addressPrefix(address: string, bits: PrefixBits): string {
  const plain = unmapped(address)
  if (isIPv4(plain)) {
    const v4 = masked(Uint8Array.from(plain.split('.').map(Number)), bits.v4)
    return `${v4.join('.')}/${bits.v4}`
  }
  const bytes = ipv6Bytes(plain)
  if (!bytes) return address
  const m = masked(bytes, bits.v6)
  const words: string[] = []
  for (let i = 0; i < Math.ceil(bits.v6 / 16); i++) words.push((((m[i * 2] as number) << 8) | (m[i * 2 + 1] as number)).toString(16))
  return `${words.join(':')}${words.length < 8 ? '::' : ''}/${bits.v6}`
}
