import type { Disk, Pool } from '../../drivers/storage/driver.js'

export type StorageHealth = 'healthy' | 'warning' | 'critical' | 'unknown'

/**
 * One word for the whole box: critical when a disk's SMART says failing or a
 * pool lost redundancy beyond repair or has no rebuild running; warning for
 * SMART warnings and pools rebuilding or resyncing; unknown when no disk
 * answers SMART and there is no pool to judge.
 */
export function storageHealth(disks: readonly Disk[], pools: readonly Pool[]): StorageHealth {
  const smart = disks.map((d) => d.smart_status).filter((s) => s !== null)
  if (smart.includes('critical') || pools.some((p) => p.status === 'failed' || p.status === 'degraded')) return 'critical'
  if (smart.includes('warning') || pools.some((p) => p.status !== 'healthy')) return 'warning'
  if (smart.length === 0 && pools.length === 0) return 'unknown'
  return 'healthy'
}
