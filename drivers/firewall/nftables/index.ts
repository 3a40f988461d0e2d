import { defineDriver, type DriverContext, ToolMissingError } from '../../../core/plugin-api.js'
import type { FirewallDriver } from '../driver.js'
import { createNftablesDriver, nftOptions } from './driver.js'

async function works(ctx: DriverContext, nft: string, args: string[]): Promise<{ ok: boolean; why: string }> {
  try {
    const result = await ctx.run(nft, args, { timeoutMs: 5_000 })
    return { ok: result.code === 0, why: result.stderr.trim().split('\n')[0] || `exit ${result.code}` }
  } catch (err) {
    if (err instanceof ToolMissingError) return { ok: false, why: 'nft is not installed' }
    throw err
  }
}

/**
 * nftables: supported where `nft --version` runs AND `nft list tables`
 * succeeds (the second fails without CAP_NET_ADMIN or kernel nf_tables).
 * Settings (api.hal.configure('firewall', ...)): nftPath, nftTable.
 */
export default defineDriver<FirewallDriver>({
  manifest: {
    name: 'nftables',
    kind: 'firewall',
    priority: 10,
    capabilities: ['canOpenPorts', 'enforced'],
    description: 'Opens ports with nftables rules in the table inet hearth',
  },
  async probe(ctx) {
    const { nft } = nftOptions(ctx.settings)
    const version = await works(ctx, nft, ['--version'])
    if (!version.ok)
      return { supported: false, reason: version.why === 'nft is not installed' ? version.why : `nft --version failed: ${version.why}` }
    const tables = await works(ctx, nft, ['list', 'tables'])
    if (!tables.ok) return { supported: false, reason: `nft list tables failed (needs root or CAP_NET_ADMIN): ${tables.why}` }
    return { supported: true }
  },
  async create(ctx) {
    return createNftablesDriver(ctx, nftOptions(ctx.settings))
  },
})
