import { defineDriver } from '../../../core/plugin-api.js'
import type { StorageDriver } from '../driver.js'
import { LINUX_BASIC_CAPABILITIES } from '../linux-basic/index.js'
import { toolWorks } from '../tools.js'
import { createMdadmDriver, MDSTAT_PATH } from './driver.js'

const POOL_CAPABILITIES = ['canListPools', 'canCreatePool', 'canReportRebuild'] as const

/**
 * mdadm: the advanced storage manager. Supported where `mdadm --version`
 * works and the kernel has md (/proc/mdstat readable); beats linux-basic.
 */
export default defineDriver<StorageDriver>({
  manifest: {
    name: 'mdadm',
    kind: 'storage',
    priority: 20,
    capabilities: [...LINUX_BASIC_CAPABILITIES, 'canGetSmart', ...POOL_CAPABILITIES],
    description: 'Linux software RAID (mdadm) on top of linux-basic',
  },
  async probe(ctx) {
    // All checks at once: every app start pays for this probe.
    const [mdadm, md, lsblk, smart] = await Promise.all([
      toolWorks(ctx, 'mdadm', ['--version']),
      toolWorks(ctx, 'cat', [MDSTAT_PATH]),
      toolWorks(ctx, 'lsblk', ['--version']),
      toolWorks(ctx, 'smartctl', ['--version']),
    ])
    if (!mdadm) return { supported: false, reason: 'mdadm is not installed' }
    if (!md) return { supported: false, reason: 'the kernel has no md RAID support (/proc/mdstat is missing)' }
    if (!lsblk) return { supported: false, reason: 'lsblk is not installed' }
    const base = smart ? [...LINUX_BASIC_CAPABILITIES, 'canGetSmart'] : [...LINUX_BASIC_CAPABILITIES]
    return { supported: true, capabilities: [...base, ...POOL_CAPABILITIES] }
  },
  async create(ctx) {
    return createMdadmDriver(ctx, { smart: await toolWorks(ctx, 'smartctl', ['--version']) })
  },
})
