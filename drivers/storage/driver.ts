import type { DriverInstance } from '../../core/plugin-api.js'

/**
 * The storage kind of the HAL: what every storage driver offers, and what a
 * driver offers only when it declares the capability (Home Assistant's
 * feature flags: the optional methods exist exactly where the flag does).
 */

/** Every flag a storage driver may declare; the API reports all of them, false where absent. */
export const STORAGE_CAPABILITIES = [
  'canListDisks',
  'canListVolumes',
  'canGetUsage',
  'canGetDataUsage',
  'canGetSmart',
  'canListPools',
  'canCreatePool',
  'canReportRebuild',
  'canManageShares',
] as const
export type StorageCapability = (typeof STORAGE_CAPABILITIES)[number]

export type DiskType = 'hdd' | 'ssd' | 'nvme' | 'usb' | 'unknown'
export type SmartStatus = 'healthy' | 'warning' | 'critical'

export interface Partition {
  name: string
  mount_point: string | null
  filesystem: string | null
  size_bytes: number
}

/** The disk object of docs/api.md, exactly. */
export interface Disk {
  id: string
  device: string
  model: string | null
  serial: string | null
  size_bytes: number
  type: DiskType
  temperature_c: number | null
  smart_status: SmartStatus | null
  partitions: Partition[]
}

export interface SmartAttribute {
  id: number | null
  name: string
  value: number | null
  worst: number | null
  threshold: number | null
  raw_value: number | null
  raw_string: string | null
  when_failed: string | null
  prefailure: boolean | null
}

export interface SmartRecord {
  disk_id: string
  overall_status: SmartStatus
  power_on_hours: number | null
  temperature_c: number | null
  /** ATA attribute 5; null where the device has no such counter (NVMe). */
  reallocated_sectors: number | null
  attributes: SmartAttribute[]
}

export type VolumeStatus = 'ok' | 'warning' | 'full'

export interface Volume {
  mount_point: string
  filesystem: string
  size_bytes: number
  used_bytes: number
  free_bytes: number
  status: VolumeStatus
  /** The mounted source (device path, or e.g. 'C:\\' for a Windows drive under WSL2). */
  source: string
  windows: boolean
}

export type RaidLevel = 'raid0' | 'raid1' | 'raid5' | 'raid6' | 'raid10'
export const RAID_LEVELS: readonly RaidLevel[] = ['raid0', 'raid1', 'raid5', 'raid6', 'raid10']
/** Fewest member disks mdadm accepts for a useful array of each level. */
export const MIN_DISKS: Record<RaidLevel, number> = { raid0: 2, raid1: 2, raid5: 3, raid6: 4, raid10: 4 }

export type PoolStatus = 'healthy' | 'degraded' | 'rebuilding' | 'resyncing' | 'inactive' | 'failed'
export type PoolMemberState = 'active' | 'rebuilding' | 'spare' | 'faulty'

export interface PoolMember {
  /** Stable id of the member's disk, or null when the member is not a listed disk. */
  id: string | null
  device: string
  state: PoolMemberState
}

export interface Pool {
  id: string
  name: string
  type: string
  status: PoolStatus
  size_bytes: number
  disks: PoolMember[]
  degraded: boolean
  /** Percent of a running recovery/resync/reshape, else null. */
  rebuild_progress: number | null
}

export interface CreatePoolInput {
  name: string
  type: RaidLevel
  diskIds: string[]
}

export interface StorageDriver extends DriverInstance {
  /** The provider name the API reports ('linux-basic', 'mdadm'). */
  readonly provider: string
  /** Baseline: physical disks with partitions (SMART summary where canGetSmart). */
  listDisks(): Promise<Disk[]>
  /** Baseline: mounted real filesystems; Windows drives under WSL2 only when asked. */
  listVolumes(opts: { includeWindows: boolean }): Promise<Volume[]>
  /** Baseline: RAID pools; always empty without canListPools. */
  listPools(): Promise<Pool[]>
  /** canGetUsage: size of the filesystem holding `path`. */
  usageOf(path: string): Promise<{ size_bytes: number; used_bytes: number; free_bytes: number }>
  /** canGetSmart: the SMART record of one disk, null when the device answers no SMART. */
  getSmart?(disk: Disk): Promise<SmartRecord | null>
  /** canCreatePool */
  createPool?(input: CreatePoolInput): Promise<Pool>
}
