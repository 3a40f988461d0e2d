import { definePlugin } from '../../core/plugin-api.js'
import linuxBasic from '../../drivers/storage/linux-basic/index.js'
import mdadm from '../../drivers/storage/mdadm/index.js'
import { StorageConfig } from './config.js'
import { diskRoutes } from './routes/disks.js'
import { overviewRoutes } from './routes/overview.js'
import { poolRoutes } from './routes/pools.js'
import { volumeRoutes } from './routes/volumes.js'
import { createStorageService } from './service.js'

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
    config: StorageConfig,
    description: 'Disks, SMART, volumes, data usage and RAID pools',
  },
  async (app, api) => {
    api.hal.register(linuxBasic)
    api.hal.register(mdadm)
    api.hal.configure('storage', { includeLoopDevices: api.config.includeLoopDevices, toolTimeoutMs: api.config.toolTimeoutMs })
    // Probing runs the disk tools (lsblk, smartctl, mdadm): once the server listens, so the daemon
    // answers sooner; a storage request before it ends waits for it (hal.settled, hal.with).
    let detecting = false
    app.addHook('onListen', (done) => {
      detecting = true
      api.hal
        .settled('storage')
        .then(() => api.log.info({ provider: api.hal.active('storage')?.name ?? null }, 'storage driver selected'))
        .finally(() => (detecting = false))
      done()
    })

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
