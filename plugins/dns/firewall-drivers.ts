import type { DriverModule, HearthApi } from '../../core/plugin-api.js'

/**
 * Registers the firewall drivers (nftables, no-op) with the HAL and picks one.
 * Another plugin may have registered them already; that is fine.
 */
export async function registerFirewallDrivers(api: HearthApi): Promise<void> {
  const path = '../../drivers/firewall/index.js'
  let modules: DriverModule[] = []
  try {
    const mod = (await import(path)) as { firewallDrivers?: DriverModule[]; default?: DriverModule[] }
    modules = mod.firewallDrivers ?? mod.default ?? []
  } catch {
    api.log.debug('no firewall drivers available')
  }
  const known = new Set(api.hal.drivers('firewall').map((d) => d.name))
  for (const m of modules) if (!known.has(m.manifest.name)) api.hal.register(m)
  if (!api.hal.active('firewall') && modules.length) await api.hal.detect('firewall')
}
