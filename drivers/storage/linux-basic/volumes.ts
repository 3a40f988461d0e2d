import type { Volume, VolumeStatus } from '../driver.js'

/**
 * Mounted filesystems from `df`, with the pseudo and memory-backed ones
 * filtered out: they hold no user data and their sizes mean nothing on a NAS.
 */
export const DF_ARGS = ['-B1', '--output=source,fstype,size,used,avail,target'] as const

export const VIRTUAL_FILESYSTEMS = new Set([
  'tmpfs',
  'devtmpfs',
  'ramfs',
  'overlay',
  'squashfs',
  'proc',
  'sysfs',
  'cgroup',
  'cgroup2',
  'devpts',
  'mqueue',
  'debugfs',
  'tracefs',
  'securityfs',
  'pstore',
  'bpf',
  'autofs',
  'configfs',
  'fusectl',
  'hugetlbfs',
  'nsfs',
  'binfmt_misc',
  'efivarfs',
  'rpc_pipefs',
  'selinuxfs',
  'fuse.lxcfs',
  'fuse.snapfuse',
  'fuse.gvfsd-fuse',
  'fuse.portal',
])

/** A Windows drive seen from WSL2: drvfs/9p mounted from `C:\` or at /mnt/<letter>. */
export function isWindowsDrive(source: string, fstype: string, target: string): boolean {
  if (fstype !== '9p' && fstype !== 'drvfs') return false
  return /^[A-Za-z]:\\?$/.test(source) || /^\/mnt\/[a-z]$/.test(target)
}

export function volumeStatus(size: number, used: number, free: number): VolumeStatus {
  if (size <= 0) return 'ok'
  if (free <= 0 || used / size >= 0.98) return 'full'
  if (used / size >= 0.9) return 'warning'
  return 'ok'
}

interface DfRow {
  source: string
  fstype: string
  size: number
  used: number
  avail: number
  target: string
}

/** Parses `df --output=...`: five whitespace-free columns, then the mount point (which may hold spaces). */
export function parseDf(stdout: string): DfRow[] {
  const rows: DfRow[] = []
  for (const line of stdout.split('\n').slice(1)) {
    const m = /^(\S+)\s+(\S+)\s+(\d+|-)\s+(\d+|-)\s+(\d+|-)\s+(.+)$/.exec(line.trim())
    if (!m) continue
    const n = (v: string) => (v === '-' ? 0 : Number(v))
    rows.push({
      source: m[1] as string,
      fstype: m[2] as string,
      size: n(m[3] as string),
      used: n(m[4] as string),
      avail: n(m[5] as string),
      target: m[6] as string,
    })
  }
  return rows
}

/**
 * Real volumes: virtual filesystems and zero-sized mounts dropped, Windows
 * drives only when asked, and bind mounts of one source reported once (at
 * its shortest mount point) so totals are not counted twice.
 */
export function volumesFromDf(stdout: string, includeWindows: boolean): Volume[] {
  const bySource = new Map<string, Volume>()
  for (const r of parseDf(stdout)) {
    if (VIRTUAL_FILESYSTEMS.has(r.fstype) || r.size <= 0) continue
    const windows = isWindowsDrive(r.source, r.fstype, r.target)
    if (windows && !includeWindows) continue
    const volume: Volume = {
      mount_point: r.target,
      filesystem: r.fstype,
      size_bytes: r.size,
      used_bytes: r.used,
      free_bytes: r.avail,
      status: volumeStatus(r.size, r.used, r.avail),
      source: r.source,
      windows,
    }
    const key = `${r.source}\u0000${r.fstype}`
    const seen = bySource.get(key)
    if (!seen || volume.mount_point.length < seen.mount_point.length) bySource.set(key, volume)
  }
  return [...bySource.values()].sort((a, b) => a.mount_point.localeCompare(b.mount_point))
}
