import { basename } from 'node:path'
import { HttpError } from '../../../core/plugin-api.js'
import { stableDiskId } from '../disk-id.js'
import type { Disk, DiskType, Partition } from '../driver.js'

/** The columns we ask lsblk for (`-O` works too: the parser ignores the rest). */
export const LSBLK_COLUMNS = 'NAME,KNAME,PATH,TYPE,SIZE,MODEL,SERIAL,WWN,TRAN,ROTA,RM,FSTYPE,MOUNTPOINT,PTUUID,SUBSYSTEMS,PKNAME'
export const LSBLK_ARGS = ['--json', '--bytes', '--output', LSBLK_COLUMNS] as const

/** One node of lsblk's tree. Old lsblk versions print numbers and booleans as strings. */
export interface LsblkNode {
  name: string
  kname?: string | null
  path?: string | null
  type?: string | null
  size?: number | string | null
  model?: string | null
  serial?: string | null
  wwn?: string | null
  tran?: string | null
  rota?: boolean | string | null
  rm?: boolean | string | null
  fstype?: string | null
  mountpoint?: string | null
  mountpoints?: Array<string | null> | null
  ptuuid?: string | null
  subsystems?: string | null
  children?: LsblkNode[]
}

const num = (v: unknown): number => {
  const n = typeof v === 'number' ? v : Number.parseInt(String(v ?? ''), 10)
  return Number.isFinite(n) ? n : 0
}
const bool = (v: unknown): boolean => v === true || v === '1' || v === 1
const text = (v: unknown): string | null => {
  const s = typeof v === 'string' ? v.trim() : ''
  return s ? s : null
}

export function parseLsblk(stdout: string): LsblkNode[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(stdout)
  } catch {
    throw new HttpError('SERVICE_UNAVAILABLE', 'lsblk printed output that is not JSON', { tool: 'lsblk' })
  }
  const devices = (parsed as { blockdevices?: unknown }).blockdevices
  if (!Array.isArray(devices)) throw new HttpError('SERVICE_UNAVAILABLE', 'lsblk printed no blockdevices', { tool: 'lsblk' })
  return devices as LsblkNode[]
}

export const knameOf = (n: LsblkNode): string => basename(text(n.kname) ?? text(n.name) ?? '')
export const devicePath = (n: LsblkNode): string => text(n.path) ?? `/dev/${knameOf(n)}`
export const mountOf = (n: LsblkNode): string | null =>
  text(n.mountpoint) ?? (n.mountpoints ?? []).map(text).find((m) => m !== null) ?? null

/** Whole disks worth listing: not RAM-backed (zram), not empty, not loop devices unless asked. */
export function isPhysicalDisk(n: LsblkNode, includeLoop = false): boolean {
  const name = knameOf(n)
  if (num(n.size) <= 0 || /^(zram|ram)\d/.test(name)) return false
  if (n.type === 'loop') return includeLoop
  return n.type === 'disk'
}

export function diskType(n: LsblkNode): DiskType {
  const tran = (text(n.tran) ?? '').toLowerCase()
  if (tran === 'nvme' || knameOf(n).startsWith('nvme')) return 'nvme'
  if (tran === 'usb') return 'usb'
  // A virtio or other virtual disk reports "rotational" for whatever its host does: don't guess.
  if ((text(n.subsystems) ?? '').includes('virtio')) return 'unknown'
  if (n.rota === undefined || n.rota === null) return 'unknown'
  return bool(n.rota) ? 'hdd' : 'ssd'
}

export function diskIdOf(n: LsblkNode): string {
  return stableDiskId({ wwn: n.wwn, serial: n.serial, model: n.model, ptuuid: n.ptuuid, kname: knameOf(n) })
}

function partitionsOf(n: LsblkNode): Partition[] {
  return (n.children ?? [])
    .filter((c) => c.type === 'part')
    .map((c) => ({ name: knameOf(c), mount_point: mountOf(c), filesystem: text(c.fstype), size_bytes: num(c.size) }))
}

/** lsblk's tree as disk objects, SMART fields left empty (the driver fills them). */
export function disksFromLsblk(nodes: LsblkNode[], includeLoop = false): Disk[] {
  return nodes
    .filter((n) => isPhysicalDisk(n, includeLoop))
    .map((n) => ({
      id: diskIdOf(n),
      device: devicePath(n),
      model: text(n.model),
      serial: text(n.serial),
      size_bytes: num(n.size),
      type: diskType(n),
      temperature_c: null,
      smart_status: null,
      partitions: partitionsOf(n),
    }))
}

/** Why a disk cannot join a new array (mounted, already a RAID/LVM member, holding swap), or null. */
export function inUseReason(n: LsblkNode): string | null {
  const walk = (node: LsblkNode): string | null => {
    const mount = mountOf(node)
    if (mount) return `${knameOf(node)} is mounted at ${mount}`
    const fs = text(node.fstype)
    if (fs === 'linux_raid_member' || fs === 'LVM2_member') return `${knameOf(node)} is a ${fs}`
    if (node.type && /^(raid|md|lvm|crypt)/.test(node.type)) return `${knameOf(node)} holds ${node.type} ${knameOf(node)}`
    for (const child of node.children ?? []) {
      const why = walk(child)
      if (why) return why
    }
    return null
  }
  return walk(n)
}

/** Maps every kernel name in the tree (disks and partitions) to the id of its whole disk. */
export function diskIdsByKname(nodes: LsblkNode[], includeLoop = false): Map<string, string> {
  const map = new Map<string, string>()
  for (const disk of nodes.filter((n) => isPhysicalDisk(n, includeLoop))) {
    const id = diskIdOf(disk)
    map.set(knameOf(disk), id)
    for (const child of disk.children ?? []) if (child.type === 'part') map.set(knameOf(child), id)
  }
  return map
}
