import type { HearthApi } from '../../core/plugin-api.js'
import { firewallDrivers } from '../../drivers/firewall/index.js'

/**
 * Registers the firewall drivers (nftables, no-op) with the HAL and picks one.
 * Another plugin may have registered them already; that is fine.
 */
export async function registerFirewallDrivers(api: HearthApi): Promise<void> {
  const known = new Set(api.hal.drivers('firewall').map((d) => d.name))
  for (const m of firewallDrivers) if (!known.has(m.manifest.name)) api.hal.register(m)
  if (!api.hal.active('firewall')) await api.hal.detect('firewall')
}
