import { basename } from 'node:path'
import type { Pool, PoolMember, PoolStatus } from '../driver.js'
import type { MdDetail } from './detail.js'
import type { MdstatArray } from './mdstat.js'

/** Roles an array of this level can lose and still serve data. */
function tolerates(level: string | null, raidDisks: number): number {
  if (level === 'raid1') return raidDisks - 1
  if (level === 'raid5' || level === 'raid4') return 1
  if (level === 'raid6') return 2
  if (level === 'raid10') return Math.floor(raidDisks / 2)
  return 0
}

export function poolStatus(a: MdstatArray): PoolStatus {
  if (!a.active) return 'inactive'
  const missing = a.raidDisks !== null && a.workingDisks !== null ? a.raidDisks - a.workingDisks : 0
  if (a.raidDisks === null) return a.members.some((m) => m.faulty) ? 'failed' : 'healthy'
  if (missing > tolerates(a.level, a.raidDisks)) return 'failed'
  if (missing > 0) return a.operation === 'recovery' ? 'rebuilding' : 'degraded'
  if (a.operation === 'recovery') return 'rebuilding'
  if (a.operation || a.pending) return 'resyncing'
  return 'healthy'
}

function memberStates(a: MdstatArray, detail: MdDetail | null, idOf: (kname: string) => string | null): PoolMember[] {
  const roleOf = new Map((detail?.members ?? []).map((m) => [basename(m.device), m.role]))
  return a.members.map((m) => {
    let state: PoolMember['state'] = 'active'
    if (m.faulty) state = 'faulty'
    else if (m.spare) state = 'spare'
    else if (a.operation === 'recovery' && a.map) {
      const role = roleOf.get(m.device)
      // The member filling a missing slot ('_' in the map) is the one being rebuilt;
      // without mdadm's roles, a device numbered past the slots is the newcomer.
      const rebuilding = typeof role === 'number' ? a.map[role] === '_' : a.raidDisks !== null && m.number >= a.raidDisks
      if (rebuilding) state = 'rebuilding'
    }
    return { id: idOf(m.device), device: `/dev/${m.device}`, state }
  })
}

/** One md array as the API's pool. */
export function toPool(a: MdstatArray, detail: MdDetail | null, idOf: (kname: string) => string | null): Pool {
  const uuid = detail?.uuid?.replace(/[^0-9a-f]/gi, '').toLowerCase()
  const mdName = detail?.name?.includes(':') ? detail.name.slice(detail.name.indexOf(':') + 1) : detail?.name
  const status = poolStatus(a)
  const missing = a.raidDisks !== null && a.workingDisks !== null && a.workingDisks < a.raidDisks
  return {
    id: `pool_${uuid || a.name.replace(/[^a-z0-9]/gi, '').toLowerCase()}`,
    name: detail?.devname ?? mdName ?? a.name,
    type: a.level ?? detail?.level ?? 'unknown',
    status,
    size_bytes: a.blocks * 1024,
    disks: memberStates(a, detail, idOf),
    degraded: missing || status === 'failed',
    rebuild_progress: a.progress,
  }
}
