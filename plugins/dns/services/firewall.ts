import type { FirewallDriver } from '../../../drivers/firewall/index.js'
import type { DnsContext } from './context.js'

/**
 * Port 53 follows the authoritative zones: the first one opens it, deleting
 * the last closes it. The work is the 'firewall' HAL kind's (nftables where
 * present, a no-op driver otherwise). A failing firewall never fails the zone
 * change: it is logged, and port53-check tells the user what the internet sees.
 */
const PROTOCOLS = ['udp', 'tcp'] as const

export function firewall(ctx: DnsContext) {
  const apply = async (open: boolean) => {
    if (ctx.config.port === 0) return
    try {
      await ctx.api.hal.with<FirewallDriver, void>('firewall', async (driver) => {
        for (const proto of PROTOCOLS) await (open ? driver.openPort(ctx.config.port, proto) : driver.closePort(ctx.config.port, proto))
      })
    } catch (err) {
      ctx.api.log.warn({ err: (err as Error).message }, `firewall: could not ${open ? 'open' : 'close'} port ${ctx.config.port} for DNS`)
    }
  }
  return {
    /** Call after an authoritative zone was created. Opening is idempotent, so concurrent first zones cannot both skip it. */
    async afterCreate() {
      await apply(true)
    },
    /** Call after an authoritative zone was deleted; closes when none remains. */
    async afterDelete() {
      if (ctx.zones.authoritative().length === 0) await apply(false)
    },
  }
}
