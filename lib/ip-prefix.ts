import { isIPv4 } from 'node:net'
import { ipv6Bytes, unmapped } from './ip-address.js'

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
