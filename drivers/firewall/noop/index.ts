import { defineDriver } from '../../../core/plugin-api.js'
import { assertPort, byPortThenProto, type FirewallDriver, type FirewallPort } from '../driver.js'

/** In-memory driver: what would be opened, for machines without nftables (or when it is not ours to touch). */
export function createNoopFirewall(): FirewallDriver {
  const open = new Map<string, FirewallPort>()
  return {
    async openPort(port, proto) {
      assertPort(port, proto)
      open.set(`${port}/${proto}`, { port, proto })
    },
    async closePort(port, proto) {
      assertPort(port, proto)
      open.delete(`${port}/${proto}`)
    },
    async list() {
      return [...open.values()].sort(byPortThenProto)
    },
  }
}

/**
 * noop: always supported, lowest priority. It enforces nothing (no
 * 'firewall.enforced' flag), so the API can tell the user port 53 must be
 * opened by hand.
 */
export default defineDriver<FirewallDriver>({
  manifest: {
    name: 'noop',
    kind: 'firewall',
    priority: 0,
    capabilities: ['canOpenPorts'],
    description: 'Records the ports Hearth would open; changes no firewall',
  },
  async probe() {
    return { supported: true }
  },
  async create() {
    return createNoopFirewall()
  },
})
