import { realpath } from 'node:fs/promises'
import { join } from 'node:path'
import type { HearthApi } from '../../core/plugin-api.js'
import {
  type CreatePoolInput,
  type Disk,
  type Pool,
  type SmartRecord,
  STORAGE_CAPABILITIES,
  type StorageDriver,
  type Volume,
} from '../../drivers/storage/driver.js'
import { CATEGORIES, CATEGORY_LABELS, type Category, StorageConfig } from './config.js'
import { measure } from './data-usage.js'
import { storageHealth } from './health.js'

const MINUTE = 60_000
/** Events after which every storage cache starts over: a driver swap, or a re-detection that kept the driver. */
export const CLEAR_ON = ['driver.changed', 'storage.detected']
export const ADVANCED_PROVIDER = 'mdadm'

type Api = HearthApi<typeof StorageConfig>

/**
 * Everything the storage routes do: drivers are only ever used through a
 * HAL lease (a swap waits for the request holding it), and results are kept
 * in caches that clear themselves on the events above.
 */
export function createStorageService(api: Api) {
  const config: StorageConfig = api.config
  const disksCache = api.cache<Disk[]>({ ttlMs: 5 * MINUTE, clearOn: CLEAR_ON })
  const smartCache = api.cache<SmartRecord | null>({ ttlMs: 30 * MINUTE, clearOn: CLEAR_ON })
  const usageCache = api.cache<DataUsage[]>({ ttlMs: 5 * MINUTE, clearOn: CLEAR_ON })

  const use = <R>(fn: (driver: StorageDriver, provider: string) => Promise<R>) =>
    api.hal.with<StorageDriver, R>('storage', (driver, active) => fn(driver, active.name))

  const disks = () => disksCache.getOrCompute('all', () => use((d) => d.listDisks()))

  const categoryPaths = (category: Category): string[] => {
    const configured = config[`${category}Dir` as keyof StorageConfig] as string
    if (configured) return [configured]
    if (category === 'database') return ['hearth.db', 'hearth.db-wal', 'hearth.db-shm'].map((f) => join(api.dataDir, f))
    return [join(api.dataDir, category)]
  }

  return {
    disks,

    async smart(id: string): Promise<SmartRecord | null> {
      const disk = (await disks()).find((d) => d.id === id)
      if (!disk) throw api.errors.notFound('Disk')
      return smartCache.getOrCompute(id, () => use(async (d) => (d.getSmart ? d.getSmart(disk) : null)))
    },

    volumes: (includeWindows: boolean): Promise<Volume[]> => use((d) => d.listVolumes({ includeWindows })),

    pools: (): Promise<Pool[]> => use((d) => d.listPools()),

    createPool: (input: CreatePoolInput): Promise<Pool> =>
      use(async (d) => {
        if (!d.createPool) throw api.errors.unprocessable(`The storage driver '${d.provider}' cannot create pools`)
        const pool = await d.createPool(input)
        // New array: disk usage and membership changed, so what we cached is stale.
        await api.events.emitAndWait('storage.detected', { userId: null, data: { reason: 'pool.created' } })
        return pool
      }),

    /** Size of the volume holding the data folder, with one health word from SMART and pools. */
    status: () =>
      use(async (d, provider) => {
        const dataDir = await realpath(api.dataDir).catch(() => api.dataDir)
        const [volumes, diskList, pools] = await Promise.all([d.listVolumes({ includeWindows: true }), disks(), d.listPools()])
        const holder = volumes
          .filter((v) => v.mount_point === '/' || dataDir === v.mount_point || dataDir.startsWith(`${v.mount_point}/`))
          .sort((a, b) => b.mount_point.length - a.mount_point.length)[0]
        const usage = holder ?? { ...(await d.usageOf(dataDir)), mount_point: dataDir }
        return {
          provider,
          total_bytes: usage.size_bytes,
          used_bytes: usage.used_bytes,
          free_bytes: usage.free_bytes,
          health: storageHealth(diskList, pools),
          mount_point: usage.mount_point,
        }
      }),

    async capabilities() {
      // The start-up detection runs in the background: answer from its result, not before it.
      await api.hal.settled('storage')
      const active = api.hal.active('storage')
      const flags: Record<string, boolean> = Object.fromEntries(STORAGE_CAPABILITIES.map((c) => [c, false]))
      Object.assign(flags, api.hal.capabilities('storage'))
      return {
        provider: active?.name ?? null,
        capabilities: flags,
        missing_for_full: active?.name === ADVANCED_PROVIDER ? null : ADVANCED_PROVIDER,
        // Why each driver is or is not in use, as of the last detection.
        drivers: api.hal.drivers('storage'),
      }
    },

    dataUsage: () =>
      usageCache.getOrCompute('all', () =>
        Promise.all(
          CATEGORIES.map(async (name) => ({
            name,
            label: CATEGORY_LABELS[name],
            ...(await measure(categoryPaths(name), config.usageTimeoutMs)),
          })),
        ),
      ),

    async detect() {
      const result = await api.hal.detect('storage')
      // A swap already cleared the caches through driver.changed; a re-detection
      // that kept the driver still promises fresh answers.
      if (!result.changed) await api.events.emitAndWait('storage.detected', { userId: null, data: result })
      return result
    },
  }
}

export interface DataUsage {
  name: string
  label: string
  size_bytes: number
  status: 'ok' | 'timeout'
}

export type StorageService = ReturnType<typeof createStorageService>
