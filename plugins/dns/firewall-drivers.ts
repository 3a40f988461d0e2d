import type { HearthApi } from '../../core/plugin-api.js'
import { firewallDrivers } from '../../drivers/firewall/index.js'

/**
 * Registers the firewall drivers (nftables, no-op) with the HAL; the HAL picks
 * one on first use.
 * Another plugin may have registered them already; that is fine.
 */
export function registerFirewallDrivers(api: HearthApi): void {
  const known = new Set(api.hal.drivers('firewall').map((d) => d.name))
  for (const m of firewallDrivers) if (!known.has(m.manifest.name)) api.hal.register(m)
  // No detection here: the HAL probes nft the first time a port must be opened.
}
