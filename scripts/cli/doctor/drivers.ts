import { readSlice, type ConfigSources } from '../../../core/config.js'
import { runCommand } from '../../../core/hal/command.js'
import { createEventBus } from '../../../core/events.js'
import type { DriverInstance, DriverModule } from '../../../core/hal/driver.js'
import { createHal } from '../../../core/hal/registry.js'
import { firewallDrivers } from '../../../drivers/firewall/index.js'
import linuxNetwork from '../../../drivers/network/linux/index.js'
import caddy from '../../../drivers/proxy/caddy/index.js'
import linuxBasic from '../../../drivers/storage/linux-basic/index.js'
import mdadm from '../../../drivers/storage/mdadm/index.js'
import tailscale from '../../../drivers/vpn/tailscale/index.js'
import restic from '../../../drivers/offsite/restic/index.js'
import { NetworkConfig } from '../../../plugins/network/config.js'
import { ProxyConfig } from '../../../plugins/proxy/config.js'
import { StorageConfig } from '../../../plugins/storage/config.js'
import type { Finding } from './finding.js'

/** What to install when no driver of a kind is supported. */
const FIX: Record<string, string> = {
  storage: 'install util-linux (lsblk) and smartmontools; mdadm for RAID pools',
  firewall: 'install nftables (nft); without it ports are not opened automatically',
  network: 'install iproute2 (ip)',
  proxy: 'install Caddy and start it (its admin API at HEARTH_CADDY_ADMIN)',
  vpn: 'install Tailscale (HEARTH_TAILSCALE_BIN names the CLI)',
  offsite: 'install restic (apt install restic; HEARTH_RESTIC_BIN names another)',
}

/**
 * Every driver's probe, through a HAL registry built the way the plugins build theirs
 * (same modules, same settings from the same variables), then the best supported
 * driver of each kind as the daemon would pick it.
 */
export async function driverFindings(sources: ConfigSources, dataDir: string): Promise<Finding[]> {
  const silent = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child: () => silent } as never
  const hal = createHal({ events: createEventBus(() => {}), log: silent, dataDir, run: runCommand, now: Date.now })
  const modules: DriverModule<DriverInstance>[] = [linuxBasic, mdadm, ...firewallDrivers, linuxNetwork, caddy, tailscale, restic]
  for (const m of modules) hal.register(m as DriverModule<DriverInstance>)
  const storage = readSlice(StorageConfig, sources, 'storage')
  const proxy = readSlice(ProxyConfig, sources, 'proxy')
  const network = readSlice(NetworkConfig, sources, 'network')
  hal.configure('storage', { includeLoopDevices: storage.includeLoopDevices, toolTimeoutMs: storage.toolTimeoutMs })
  hal.configure('network', { sysfsRoot: network.sysfsRoot })
  hal.configure('proxy', {
    admin: proxy.caddyAdmin,
    httpPort: proxy.httpPort,
    httpsPort: proxy.httpsPort,
    acmeDirectory: proxy.acmeDirectory,
    acmeEmail: proxy.acmeEmail,
    acmeCaRoot: proxy.acmeCaRoot,
  })
  hal.configure('vpn', { bin: sources.HEARTH_TAILSCALE_BIN || 'tailscale', installCommand: [] })
  hal.configure('offsite', { bin: sources.HEARTH_RESTIC_BIN || 'restic' })
  const findings: Finding[] = []
  try {
    for (const kind of hal.kinds()) {
      await hal.detect(kind)
      const reports = hal.drivers(kind)
      const active = reports.find((r) => r.active)
      const probes = reports.map((r) => `${r.name}: ${r.supported ? 'supported' : `not supported (${r.reason})`}`).join('; ')
      findings.push(
        active
          ? { check: `driver ${kind}`, status: 'ok', message: `${active.name} is used (${probes})` }
          : {
              check: `driver ${kind}`,
              status: 'warn',
              message: `no supported driver: ${probes}`,
              fix: FIX[kind] ?? `install what the ${kind} drivers need`,
            },
      )
    }
  } finally {
    await hal.close()
  }
  return findings
}
