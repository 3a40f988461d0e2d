import type { DriverInstance, DriverModule } from '../../core/plugin-api.js'
import nftables from './nftables/index.js'
import noop from './noop/index.js'

export type { FirewallDriver, FirewallPort, FirewallProto } from './driver.js'
export { FIREWALL_CAPABILITIES } from './driver.js'

/** Register both with api.hal.register(...), then api.hal.detect('firewall'). */
export const firewallDrivers: DriverModule<DriverInstance>[] = [nftables, noop]
export { nftables, noop }
