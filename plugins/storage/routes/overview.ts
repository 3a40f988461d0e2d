import { type PluginInstance, Single } from '../../../core/plugin-api.js'
import { Capabilities, DetectResult, StorageStatus } from '../schemas.js'
import type { StorageService } from '../service.js'

/** Which driver serves storage, what it can do, and re-detection (admins only). */
export async function overviewRoutes(app: PluginInstance, { service }: { service: StorageService }): Promise<void> {
  app.get(
    '/status',
    {
      // No storage driver supports this machine.
      config: { errors: ['SERVICE_UNAVAILABLE'] },
      schema: { summary: 'Get the state of the storage', tags: ['storage'], response: { 200: Single(StorageStatus) } },
    },
    async () => service.status(),
  )

  app.get(
    '/capabilities',
    {
      schema: { summary: 'List what the active storage driver can do', tags: ['storage'], response: { 200: Single(Capabilities) } },
    },
    async () => service.capabilities(),
  )

  app.post(
    '/detect-provider',
    {
      schema: { summary: 'Detect the storage driver again', tags: ['storage'], response: { 200: Single(DetectResult) } },
      config: { role: 'admin', scope: 'admin' },
    },
    async () => service.detect(),
  )
}
