import { definePlugin } from '../../core/plugin-api.js'
import linuxBasic from '../../drivers/storage/linux-basic/index.js'
import mdadm from '../../drivers/storage/mdadm/index.js'
import { StorageConfig } from './config.js'
import { diskRoutes } from './routes/disks.js'
import { overviewRoutes } from './routes/overview.js'
import { poolRoutes } from './routes/pools.js'
import { volumeRoutes } from './routes/volumes.js'
import { createStorageService } from './service.js'

/** How long after listening the storage probe starts (unless a storage request starts it sooner). */
const PROBE_DELAY_MS = 300

/**
 * Storage through the HAL: both storage drivers are registered, the best
 * supported one is picked at start, and POST /detect-provider swaps drivers
 * under running traffic.
 */
export default definePlugin(
  {
    name: 'storage',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    prefix: '/hal/storage',
    // Agent keys read DNS, storage and network; writes take a session or a system key.
    scope: 'appliance',
    config: StorageConfig,
    description: 'Disks, SMART, volumes, data usage and RAID pools',
  },
  async (app, api) => {
    api.hal.register(linuxBasic)
    api.hal.register(mdadm)
    api.hal.configure('storage', { includeLoopDevices: api.config.includeLoopDevices, toolTimeoutMs: api.config.toolTimeoutMs })
    // Probing runs the disk tools (lsblk, smartctl, mdadm): each spawn forks the daemon, blocking its event
    // loop for milliseconds. It starts shortly after the server listens, so the first requests (/health
    // from the service manager) are answered first; a storage request before it ends starts it or waits
    // for it (hal.settled, hal.with).
    let detecting = false
    let timer: NodeJS.Timeout | undefined
    app.addHook('onListen', (done) => {
      detecting = true
      timer = setTimeout(() => {
        api.hal
          .settled('storage')
          .then(() => api.log.info({ provider: api.hal.active('storage')?.name ?? null }, 'storage driver selected'))
          .finally(() => (detecting = false))
      }, PROBE_DELAY_MS)
      done()
    })
    api.onClose(() => clearTimeout(timer))

    api.health.register('storage', () => {
      if (detecting && !api.hal.active('storage')) return { status: 'degraded', message: 'detecting the storage driver' }
      const active = api.hal.active('storage')
      if (!active) return { status: 'unavailable', message: 'no storage driver is supported (is lsblk installed?)' }
      return { status: 'ok', message: `provider ${active.name}` }
    })

    const service = createStorageService(api)
    await overviewRoutes(app, { service })
    await diskRoutes(app, { service })
    await volumeRoutes(app, { service })
    await poolRoutes(app, { service })
  },
)
