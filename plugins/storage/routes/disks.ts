import { everything, ListOf, Nullable, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { Disk, DiskParams, SmartRecord } from '../schemas.js'
import type { StorageService } from '../service.js'

/** Disks (cached 5 minutes) and each disk's SMART record (cached 30 minutes per disk). */
export async function diskRoutes(app: PluginInstance, { service }: { service: StorageService }): Promise<void> {
  app.get(
    '/disks',
    {
      schema: { summary: 'List disks', tags: ['storage'], response: { 200: ListOf(Disk) } },
      config: { requires: ['storage.canListDisks'] },
    },
    async () => everything(await service.disks()),
  )

  app.get(
    '/disks/:id/smart',
    {
      schema: {
        summary: "Get a disk's SMART health",
        tags: ['storage'],
        params: DiskParams,
        response: { 200: Single(Nullable(SmartRecord)) },
      },
      config: { requires: ['storage.canListDisks'] },
    },
    async (request) => service.smart(request.params.id),
  )
}
