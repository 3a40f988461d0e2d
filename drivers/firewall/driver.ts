import type { DriverInstance } from '../../core/plugin-api.js'

/**
 * The firewall kind of the HAL: opening and closing single ports for the
 * daemon's own services (port 53 for the built-in DNS server). Drivers:
 * nftables (priority 10, real rules) and noop (priority 0, records only).
 */

export type FirewallProto = 'tcp' | 'udp'

export interface FirewallPort {
  port: number
  proto: FirewallProto
}

/** Every flag a firewall driver may declare. */
export const FIREWALL_CAPABILITIES = ['canOpenPorts', 'enforced'] as const
export type FirewallCapability = (typeof FIREWALL_CAPABILITIES)[number]

export interface FirewallDriver extends DriverInstance {
  /** Idempotent: opening an open port changes nothing. */
  openPort(port: number, proto: FirewallProto): Promise<void>
  /** Idempotent: closing a closed port changes nothing. */
  closePort(port: number, proto: FirewallProto): Promise<void>
  /** Ports this driver has opened, sorted by port then proto. */
  list(): Promise<FirewallPort[]>
}

/** Rejects what no firewall should be asked to open (caller bugs, not user input). */
export function assertPort(port: number, proto: string): asserts proto is FirewallProto {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`firewall: port ${port} is not 1..65535`)
  if (proto !== 'tcp' && proto !== 'udp') throw new RangeError(`firewall: protocol ${proto} is not tcp or udp`)
}

export const byPortThenProto = (a: FirewallPort, b: FirewallPort): number => a.port - b.port || a.proto.localeCompare(b.proto)
