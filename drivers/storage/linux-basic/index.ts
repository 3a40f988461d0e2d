import { defineDriver } from '../../../core/plugin-api.js'
import { toolWorks } from '../tools.js'
import { createLinuxBasic, type LinuxBasicDriver } from './driver.js'

/** Capabilities linux-basic always has; canGetSmart joins them when smartctl is installed. */
export const LINUX_BASIC_CAPABILITIES = ['canListDisks', 'canListVolumes', 'canGetUsage', 'canGetDataUsage'] as const

/**
 * linux-basic: disks from lsblk, volumes from df, SMART from smartctl,
 * never any pool. Its only hard requirement is lsblk (util-linux).
 */
export default defineDriver<LinuxBasicDriver>({
  manifest: {
    name: 'linux-basic',
    kind: 'storage',
    priority: 10,
    capabilities: [...LINUX_BASIC_CAPABILITIES, 'canGetSmart'],
    description: 'Disks, volumes and SMART through lsblk, df and smartctl',
  },
  async probe(ctx) {
    // Both checks at once: every app start pays for this probe.
    const [lsblk, smart] = await Promise.all([toolWorks(ctx, 'lsblk', ['--version']), toolWorks(ctx, 'smartctl', ['--version'])])
    if (!lsblk) return { supported: false, reason: 'lsblk is not installed' }
    return { supported: true, capabilities: smart ? [...LINUX_BASIC_CAPABILITIES, 'canGetSmart'] : [...LINUX_BASIC_CAPABILITIES] }
  },
  async create(ctx) {
    return createLinuxBasic(ctx, { smart: await toolWorks(ctx, 'smartctl', ['--version']) })
  },
})
