import { type AddressList, LOOPBACK, parseAddressList } from '../lib/address-list.js'
import { addressPrefix } from '../lib/ip-prefix.js'

/**
 * Who "one client" is, for every budget counted per client (failed sign-ins, connections): an IPv4
 * address, or an IPv6 /64, the network a single home or host is given, whose 2^64 addresses one
 * party rotates through at will.
 */
export const CLIENT_BITS = { v4: 32, v6: 64 }

/** The key one client's budgets are counted under. */
export function clientOf(address: string | undefined): string {
  return addressPrefix(address ?? '', CLIENT_BITS)
}

function listOf(entries: readonly string[]): AddressList {
  const parsed = parseAddressList(entries)
  // The configuration was validated at load: a problem here is a programming error.
  if ('problem' in parsed) throw new Error(parsed.problem)
  return parsed.list
}

const NOBODY = listOf([])

/**
 * Which peers' X-Forwarded-For / -Proto / -Host are believed. Set explicitly by HEARTH_TRUSTED_PROXIES
 * (`none` for nobody). Left empty, it is decided once the plugins have loaded: the loopback addresses
 * when the built-in proxy plugin runs (its configuration accepts only a loopback or unix-socket Caddy
 * admin address, so a running proxy plugin means a Caddy on this host, forwarding from loopback),
 * nobody otherwise. Any other peer's headers are ignored: its own address is the client.
 */
export function createProxyTrust(setting: readonly string[]) {
  const automatic = setting.length === 0
  let trusted = automatic || (setting.length === 1 && setting[0] === 'none') ? NOBODY : listOf(setting)
  return {
    /** Fastify's `trustProxy`: is the peer at `address` (a hop of the forwarding chain) a trusted proxy? */
    trusts: (address: string): boolean => trusted.has(address),
    /** Called once the plugins have loaded; an explicit setting is kept. */
    settle(proxyPluginLoaded: boolean): void {
      if (automatic && proxyPluginLoaded) trusted = listOf(LOOPBACK)
    },
    get entries(): readonly string[] {
      return trusted.entries
    },
  }
}
export type ProxyTrust = ReturnType<typeof createProxyTrust>
