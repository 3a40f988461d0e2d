import { type PluginInstance, Single } from '../../../core/plugin-api.js'
import { Capabilities, DetectResult, StorageStatus } from '../schemas.js'
import type { StorageService } from '../service.js'

/** Which driver serves storage, what it can do, and re-detection (admins only). */
export async function overviewRoutes(app: PluginInstance, { service }: { service: StorageService }): Promise<void> {
  app.get('/status', { schema: { tags: ['storage'], response: { 200: Single(StorageStatus) } } }, async () => service.status())

  app.get('/capabilities', { schema: { tags: ['storage'], response: { 200: Single(Capabilities) } } }, async () => service.capabilities())

  app.post(
    '/detect-provider',
    { schema: { tags: ['storage'], response: { 200: Single(DetectResult) } }, config: { role: 'admin', scope: 'admin' } },
    async () => service.detect(),
  )
}
