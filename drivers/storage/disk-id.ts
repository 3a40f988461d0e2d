import { createHash } from 'node:crypto'

/**
 * Stable disk ids. A disk keeps its id across reboots and device renames
 * (sda becoming sdb) because the id hashes what the disk itself reports,
 * in this order of preference:
 *   1. WWN (world-wide name: unique across vendors),
 *   2. serial number (with the model, as serials are unique per vendor only),
 *   3. the partition-table UUID (survives renames; changes on repartitioning),
 *   4. the kernel name, last resort for virtual disks reporting none of the
 *      above (e.g. a virtio disk without serial): stable across reboots as long
 *      as the bus order is, but not across renames.
 */
export interface DiskIdentity {
  wwn?: string | null
  serial?: string | null
  model?: string | null
  ptuuid?: string | null
  kname: string
}

export const DISK_ID_PATTERN = '^disk_[a-z0-9]+$'

export function diskIdBasis(d: DiskIdentity): string {
  const clean = (v: string | null | undefined) => (v ?? '').trim()
  const wwn = clean(d.wwn).toLowerCase()
  if (wwn && !/^0x0+$/.test(wwn)) return `wwn:${wwn}`
  const serial = clean(d.serial)
  if (serial) return `serial:${clean(d.model)}:${serial}`
  const ptuuid = clean(d.ptuuid).toLowerCase()
  if (ptuuid) return `ptuuid:${ptuuid}`
  return `kname:${d.kname}`
}

export function stableDiskId(d: DiskIdentity): string {
  return `disk_${createHash('sha256').update(diskIdBasis(d)).digest('hex').slice(0, 16)}`
}
