import type { NetworkInterface } from '../driver.js'

/** One entry of `ip -json -details address show` (iproute2), the fields read here. */
export interface IpLink {
  ifname: string
  operstate?: string
  link_type?: string
  address?: string
  linkinfo?: { info_kind?: string }
  addr_info?: Array<{ family?: string; local?: string; scope?: string }>
}

/** What sysfs says of a device: whether it is wireless or backed by hardware, and its speed. */
export interface SysfsFacts {
  wireless: boolean
  hardware: boolean
  speed: number | null
}

const KIND_TYPE: Record<string, NetworkInterface['type']> = {
  bridge: 'bridge',
  vlan: 'vlan',
  bond: 'bond',
  tun: 'tunnel',
  tap: 'tunnel',
  wireguard: 'tunnel',
  gre: 'tunnel',
  ipip: 'tunnel',
  sit: 'tunnel',
  vxlan: 'tunnel',
}

/** Turns iproute2's JSON and the sysfs facts into the API's interface entries. */
export function toInterfaces(links: IpLink[], sysfs: (name: string) => SysfsFacts): NetworkInterface[] {
  return links.map((link) => {
    const facts = sysfs(link.ifname)
    const kind = link.linkinfo?.info_kind
    const loopback = link.link_type === 'loopback'
    const type: NetworkInterface['type'] = loopback
      ? 'loopback'
      : kind
        ? (KIND_TYPE[kind] ?? 'virtual')
        : facts.wireless
          ? 'wifi'
          : link.link_type === 'ether'
            ? facts.hardware
              ? 'ethernet'
              : 'virtual'
            : 'other'
    const v4 = (link.addr_info ?? []).filter((a) => a.family === 'inet' && a.local)
    const v6 = (link.addr_info ?? []).filter((a) => a.family === 'inet6' && a.local)
    const ipv6 = v6.find((a) => a.scope === 'global') ?? v6[0]
    const state = (link.operstate ?? 'UNKNOWN').toLowerCase()
    return {
      name: link.ifname,
      mac: link.address && !loopback ? link.address : null,
      ipv4: v4[0]?.local ?? null,
      ipv6: ipv6?.local ?? null,
      type,
      status: state === 'up' ? 'up' : state === 'down' || state === 'lowerlayerdown' || state === 'dormant' ? 'down' : 'unknown',
      speed_mbps: facts.speed !== null && facts.speed > 0 ? facts.speed : null,
      virtual: loopback || kind !== undefined || !facts.hardware,
    }
  })
}
