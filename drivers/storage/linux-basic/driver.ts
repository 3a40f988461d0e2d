import { statfs } from 'node:fs/promises'
import { type DriverContext, HttpError } from '../../../core/plugin-api.js'
import type { Disk, SmartRecord, StorageDriver, Volume } from '../driver.js'
import { firstLine, runOk, runTool } from '../tools.js'
import { disksFromLsblk, LSBLK_ARGS, type LsblkNode, parseLsblk } from './lsblk.js'
import { parseSmartctl, SMARTCTL_ARGS } from './smart.js'
import { DF_ARGS, volumesFromDf } from './volumes.js'

const SAFE_DEVICE = /^\/dev\/[A-Za-z0-9._/-]+$/

/** The basic Linux driver, also the base the mdadm driver composes. */
export interface LinuxBasicDriver extends StorageDriver {
  /** lsblk's raw tree, for drivers built on this one. */
  blockTree(): Promise<LsblkNode[]>
}

export function createLinuxBasic(ctx: DriverContext, opts: { smart: boolean; provider?: string }): LinuxBasicDriver {
  const includeLoop = ctx.settings.includeLoopDevices === true

  const blockTree = async () => parseLsblk(await runOk(ctx, 'lsblk', LSBLK_ARGS))

  const querySmart = async (disk: Disk, wake: boolean): Promise<SmartRecord | null> => {
    if (!SAFE_DEVICE.test(disk.device)) throw new HttpError('UNPROCESSABLE', `Refusing to query device ${disk.device}`)
    const result = await runTool(ctx, 'smartctl', SMARTCTL_ARGS(disk.device, { wake }))
    return parseSmartctl(disk.id, result.stdout, result.code)
  }
  /** The SMART record asked for: reads the disk even if it has to spin up. */
  const getSmart = (disk: Disk) => querySmart(disk, true)

  /**
   * Adds the SMART summary to each disk; a disk whose query fails just shows
   * null. Listing never wakes a sleeping disk (`-n standby`): a NAS lists its
   * disks every few minutes and must not keep them spinning for it.
   */
  const withSmart = async (disks: Disk[]): Promise<Disk[]> =>
    Promise.all(
      disks.map(async (disk) => {
        try {
          const smart = await querySmart(disk, false)
          return { ...disk, smart_status: smart?.overall_status ?? null, temperature_c: smart?.temperature_c ?? null }
        } catch (err) {
          ctx.log.warn({ err, device: disk.device }, 'SMART query failed; disk listed without it')
          return disk
        }
      }),
    )

  const driver: LinuxBasicDriver = {
    provider: opts.provider ?? 'linux-basic',
    blockTree,
    async listDisks() {
      const disks = disksFromLsblk(await blockTree(), includeLoop)
      return opts.smart ? withSmart(disks) : disks
    },
    async listVolumes({ includeWindows }): Promise<Volume[]> {
      const result = await runTool(ctx, 'df', DF_ARGS)
      // df exits 1 when one mount cannot be read (a FUSE mount of another user,
      // a stale share) yet prints every other row: report those, log the rest.
      const rows = result.stdout.trim().split('\n').length > 1
      if (result.code !== 0 && !rows) {
        throw new HttpError('SERVICE_UNAVAILABLE', `df failed: ${firstLine(result.stderr) || `exit ${result.code}`}`, { tool: 'df' })
      }
      if (result.code !== 0) ctx.log.warn({ stderr: firstLine(result.stderr) }, 'df could not read every mount')
      return volumesFromDf(result.stdout, includeWindows)
    },
    async listPools() {
      return []
    },
    async usageOf(path) {
      try {
        const s = await statfs(path)
        const size = s.blocks * s.bsize
        const free = s.bavail * s.bsize
        return { size_bytes: size, free_bytes: free, used_bytes: size - s.bfree * s.bsize }
      } catch (err) {
        throw new HttpError('SERVICE_UNAVAILABLE', `Cannot read the filesystem of ${path}: ${(err as Error).message}`)
      }
    },
  }
  if (opts.smart) driver.getSmart = getSmart
  return driver
}
