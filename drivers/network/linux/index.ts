import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type DriverContext, defineDriver, HttpError, ToolMissingError } from '../../../core/plugin-api.js'
import type { NetworkDriver } from '../driver.js'
import { type IpLink, type SysfsFacts, toInterfaces } from './interfaces.js'

/**
 * linux: interfaces from iproute2 (`ip -json -details address show`: names, state, addresses,
 * link kinds) and sysfs (wireless, hardware-backed, speed). `settings.sysfsRoot` (default
 * /sys/class/net) lets tests point it at a captured tree.
 */
function sysfsReader(root: string): (name: string) => SysfsFacts {
  return (name) => {
    const dir = join(root, name)
    let speed: number | null = null
    try {
      speed = Number.parseInt(readFileSync(join(dir, 'speed'), 'utf8').trim(), 10)
    } catch {
      // Reading speed fails with EINVAL on a link that is down, and the file is absent on virtual devices.
    }
    return {
      wireless: existsSync(join(dir, 'wireless')) || existsSync(join(dir, 'phy80211')),
      hardware: existsSync(join(dir, 'device')),
      speed: Number.isFinite(speed) ? speed : null,
    }
  }
}

async function ip(ctx: DriverContext): Promise<IpLink[]> {
  let result
  try {
    result = await ctx.run('ip', ['-json', '-details', 'address', 'show'], { timeoutMs: 5000, env: { LC_ALL: 'C' } })
  } catch (err) {
    if (err instanceof ToolMissingError) throw new HttpError('SERVICE_UNAVAILABLE', 'ip (iproute2) is not installed', { tool: 'ip' })
    throw err
  }
  if (result.code !== 0)
    throw new HttpError('SERVICE_UNAVAILABLE', `ip failed: ${result.stderr.trim().split('\n')[0] || `exit ${result.code}`}`)
  try {
    return JSON.parse(result.stdout) as IpLink[]
  } catch {
    throw new HttpError('SERVICE_UNAVAILABLE', 'ip answered something other than JSON (iproute2 too old?)')
  }
}

export default defineDriver<NetworkDriver>({
  manifest: {
    name: 'linux',
    kind: 'network',
    priority: 10,
    capabilities: ['canListInterfaces'],
    description: 'Interfaces through iproute2 and sysfs',
  },
  async probe(ctx) {
    try {
      const res = await ctx.run('ip', ['-json', 'link', 'show', 'lo'], { timeoutMs: 3000 })
      return res.code === 0 ? { supported: true } : { supported: false, reason: 'ip -json does not work (iproute2 too old?)' }
    } catch {
      return { supported: false, reason: 'ip (iproute2) is not installed' }
    }
  },
  async create(ctx) {
    const sysfs = sysfsReader(String(ctx.settings.sysfsRoot ?? '/sys/class/net'))
    return { interfaces: async () => toInterfaces(await ip(ctx), sysfs) }
  },
})
