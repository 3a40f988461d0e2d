import type { DriverInstance } from '../../core/plugin-api.js'

/** One network interface as the API answers it (docs/api.md), with `virtual` marking software devices. */
export interface NetworkInterface {
  name: string
  mac: string | null
  /** The interface's first IPv4 address, without prefix length; null without one. */
  ipv4: string | null
  /** Its first global IPv6 address, else its link-local one; null without one. */
  ipv6: string | null
  type: 'ethernet' | 'wifi' | 'loopback' | 'bridge' | 'vlan' | 'bond' | 'tunnel' | 'virtual' | 'other'
  status: 'up' | 'down' | 'unknown'
  /** Negotiated link speed; null when the device does not say (virtual, down, wifi). */
  speed_mbps: number | null
  /** A software device (bridge, veth, tunnel, VPN, dummy...), not a port of the box. */
  virtual: boolean
}

/** The `network` HAL kind: what any network driver offers. */
export interface NetworkDriver extends DriverInstance {
  interfaces(): Promise<NetworkInterface[]>
}
