import { BlockList, isIPv4, isIPv6 } from 'node:net'
import { unmapped } from './ip-address.js'

/** A set of addresses and networks (`192.0.2.7`, `10.0.0.0/8`, `::1`, `fd00::/8`) an address is checked against. */
export interface AddressList {
  /** The entries as given, in order. */
  readonly entries: readonly string[]
  /** True when `address` (an IPv4-mapped IPv6 address counts as its IPv4 address) is in the list. */
  has(address: string): boolean
}

/** The loopback networks, both families. */
export const LOOPBACK = ['127.0.0.0/8', '::1']

/**
 * Reads a comma-separated list of addresses and CIDR networks. Returns the first entry that is neither,
 * as `problem`, instead of a list: a typo in a trust setting must stop the start, not trust nothing
 * (or everything) quietly.
 */
export function parseAddressList(entries: readonly string[]): { list: AddressList } | { problem: string } {
  const blocks = new BlockList()
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/')
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null
    const max = family === 'ipv4' ? 32 : 128
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : -1
    if (!family || extra !== undefined || prefix < 0 || prefix > max)
      return { problem: `'${entry}' is not an address or a network (a.b.c.d/n)` }
    blocks.addSubnet(address, prefix, family)
  }
  return {
    list: {
      entries: [...entries],
      has(address) {
        const plain = unmapped(address)
        if (isIPv4(plain)) return blocks.check(plain, 'ipv4')
        return isIPv6(plain) && blocks.check(plain.split('%')[0] as string, 'ipv6')
      },
    },
  }
}
