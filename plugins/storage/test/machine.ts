import { sourcePath } from '../../../test/paths.js'
import { LSBLK_ARGS } from '../../../drivers/storage/linux-basic/lsblk.js'
import { DF_ARGS } from '../../../drivers/storage/linux-basic/volumes.js'
import { readFixture, type ReplyTable, replayRunner, TOOL_VERSIONS } from '../../../drivers/storage/test-support/replay.js'

/**
 * A NAS made of real captures: lsblk of a system disk and five data disks,
 * each answering smartctl with a real disk's output, df of this VM, and
 * (when given) a /proc/mdstat. Without mdstat the kernel "has no md", as on
 * this VM, and linux-basic is picked.
 */
const driverFixture = (driver: string, name: string) =>
  readFixture(sourcePath(import.meta.url, `../../../drivers/storage/${driver}/test/fixtures/${name}`))
export const basicFixture = (name: string) => driverFixture('linux-basic', name)
export const mdadmFixture = (name: string) => driverFixture('mdadm', name)

export const LSBLK = `lsblk ${LSBLK_ARGS.join(' ')}`
export const DF = `df ${DF_ARGS.join(' ')}`
export const MDSTAT = 'cat /proc/mdstat'
export const NO_MD = { code: 1, stderr: 'cat: /proc/mdstat: No such file or directory\n' }

/** Which real capture each device answers smartctl with (and smartctl's real exit status). */
export const SMART_OF: Record<string, [string, number]> = {
  '/dev/sda': ['smartctl-virtio-vda.json', 1],
  '/dev/sdb': ['smartctl-sata-hdd-wd20efrx.json', 0],
  '/dev/sdc': ['smartctl-sata-ssd-samsung-mz7wd240.json', 0],
  '/dev/sdd': ['smartctl-nvme-samsung-970evo.json', 0],
  '/dev/sde': ['smartctl-usb-unknown-bridge.json', 1],
  '/dev/sdf': ['smartctl-failing-wd3200bevt.json', 216],
}

export function nasTable(opts: { mdstat?: string; smart?: Record<string, [string, number]> } = {}): ReplyTable {
  const table: ReplyTable = {
    ...TOOL_VERSIONS,
    [LSBLK]: { stdout: mdadmFixture('lsblk-five-spare-disks.json') },
    [DF]: { stdout: basicFixture('df-this-vm.txt') },
    [MDSTAT]: opts.mdstat === undefined ? NO_MD : { stdout: opts.mdstat },
  }
  for (const [device, [file, code]] of Object.entries(opts.smart ?? SMART_OF)) {
    // The disk listing asks with `-n standby`, the SMART record without it.
    table[`smartctl --json -a ${device}`] = { stdout: basicFixture(file), code }
    table[`smartctl --json -a -n standby ${device}`] = { stdout: basicFixture(file), code }
  }
  return table
}

export const nasRunner = (opts: Parameters<typeof nasTable>[0] = {}) => replayRunner(nasTable(opts))

/** A clock tests move by hand. */
export function manualClock(start = Date.parse('2026-11-22T08:00:00Z')) {
  let now = start
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms
    },
  }
}
