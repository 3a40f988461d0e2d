import { type DriverContext, HttpError } from '../../../core/plugin-api.js'
import { type CreatePoolInput, MIN_DISKS, type Pool, type StorageDriver } from '../driver.js'
import { createLinuxBasic } from '../linux-basic/driver.js'
import { devicePath, diskIdOf, diskIdsByKname, inUseReason, isPhysicalDisk, knameOf } from '../linux-basic/lsblk.js'
import { firstLine, runOk, runTool } from '../tools.js'
import { parseDetailExport } from './detail.js'
import { parseMdstat } from './mdstat.js'
import { toPool } from './pools.js'

export const MDSTAT_PATH = '/proc/mdstat'
/** Array names end up in /dev/md/<name> and in the superblock: keep them to a safe alphabet. */
export const POOL_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$'

/**
 * The advanced storage manager: everything linux-basic does (by composition)
 * plus Linux software RAID through the real mdadm.
 */
export function createMdadmDriver(ctx: DriverContext, opts: { smart: boolean }): StorageDriver {
  const base = createLinuxBasic(ctx, { smart: opts.smart, provider: 'mdadm' })
  const includeLoop = ctx.settings.includeLoopDevices === true

  const readMdstat = async () => parseMdstat(await runOk(ctx, 'cat', [MDSTAT_PATH]))

  const listPools = async (): Promise<Pool[]> => {
    const [arrays, tree] = await Promise.all([readMdstat(), base.blockTree()])
    const ids = diskIdsByKname(tree, includeLoop)
    return Promise.all(
      arrays.map(async (a) => {
        const detail = await runTool(ctx, 'mdadm', ['--detail', '--export', `/dev/${a.name}`])
        return toPool(a, detail.code === 0 ? parseDetailExport(detail.stdout) : null, (k) => ids.get(k) ?? null)
      }),
    )
  }

  const createPool = async (input: CreatePoolInput): Promise<Pool> => {
    const min = MIN_DISKS[input.type]
    if (input.diskIds.length < min) {
      throw new HttpError('VALIDATION_ERROR', `${input.type} needs at least ${min} disks`, {
        field: 'diskIds',
        constraint: 'minItems',
        minimum: min,
      })
    }
    if (!new RegExp(POOL_NAME_PATTERN).test(input.name)) {
      throw new HttpError('VALIDATION_ERROR', 'name: pattern', { field: 'name', constraint: 'pattern' })
    }
    const [tree, arrays, pools] = await Promise.all([base.blockTree(), readMdstat(), listPools()])
    if (pools.some((p) => p.name === input.name)) throw new HttpError('CONFLICT', `A pool named ${input.name} already exists`)
    const members = new Set(arrays.flatMap((a) => a.members.map((m) => m.device)))
    const devices: string[] = []
    for (const diskId of input.diskIds) {
      const node = tree.find((n) => isPhysicalDisk(n, includeLoop) && diskIdOf(n) === diskId)
      if (!node) throw new HttpError('UNPROCESSABLE', `Unknown disk ${diskId}`, { field: 'diskIds', diskId })
      const member = [knameOf(node), ...(node.children ?? []).map(knameOf)].find((k) => members.has(k))
      const why = member ? `${member} is a member of an existing array` : inUseReason(node)
      if (why) throw new HttpError('CONFLICT', `Disk ${diskId} is in use: ${why}`, { diskId })
      devices.push(devicePath(node))
    }
    const args = [
      '--create',
      `/dev/md/${input.name}`,
      '--run',
      `--level=${input.type}`,
      `--raid-devices=${devices.length}`,
      '--metadata=1.2',
      `--name=${input.name}`,
      ...devices,
    ]
    const result = await runTool(ctx, 'mdadm', args, { timeoutMs: 60_000 })
    if (result.code !== 0) {
      const why = firstLine(result.stderr) || `exit ${result.code}`
      const busy = /busy|in use|already|part of a raid/i.test(result.stderr)
      throw new HttpError(busy ? 'CONFLICT' : 'UNPROCESSABLE', `mdadm refused to create the pool: ${why}`, { tool: 'mdadm' })
    }
    const created = (await listPools()).find((p) => p.name === input.name)
    if (!created) throw new HttpError('SERVICE_UNAVAILABLE', 'mdadm created the pool but it does not appear in /proc/mdstat')
    return created
  }

  return { ...base, provider: 'mdadm', listPools, createPool }
}
