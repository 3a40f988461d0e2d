import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import type { Finding } from './finding.js'

/** The OS tools drivers use, what each is for, and the Debian package that brings it. */
export const TOOLS: Array<{ name: string; purpose: string; install: string }> = [
  { name: 'caddy', purpose: 'the reverse proxy and HTTPS', install: 'apt-get install caddy' },
  { name: 'smartctl', purpose: 'disk health (SMART)', install: 'apt-get install smartmontools' },
  { name: 'mdadm', purpose: 'RAID pools', install: 'apt-get install mdadm' },
  { name: 'nft', purpose: 'opening firewall ports', install: 'apt-get install nftables' },
  { name: 'tailscale', purpose: 'the VPN', install: 'install Tailscale from tailscale.com/download (not packaged by Debian)' },
]

/** The first executable `name` on PATH, or null. */
export function which(name: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue
    const file = join(dir, name)
    try {
      if (!statSync(file).isFile()) continue
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not here
    }
  }
  return null
}

export function toolFindings(path = process.env.PATH ?? '', tailscaleBin = 'tailscale'): Finding[] {
  return TOOLS.map((t) => {
    const bin = t.name === 'tailscale' ? tailscaleBin : t.name
    const found = bin.includes('/') ? (which(bin.split('/').pop() as string, bin.slice(0, bin.lastIndexOf('/'))) ?? null) : which(bin, path)
    return found
      ? { check: `tool ${t.name}`, status: 'ok' as const, message: found }
      : { check: `tool ${t.name}`, status: 'warn' as const, message: `not found on PATH (needed for ${t.purpose})`, fix: t.install }
  })
}
