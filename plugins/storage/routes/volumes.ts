import { everything, ListOf, type PluginInstance } from '../../../core/plugin-api.js'
import { DataUsageCategory, Volume, VolumesQuery } from '../schemas.js'
import type { StorageService } from '../service.js'

/** Mounted volumes, and how much each data category takes (cached 5 minutes). */
export async function volumeRoutes(app: PluginInstance, { service }: { service: StorageService }): Promise<void> {
  app.get(
    '/volumes',
    {
      schema: { summary: 'List volumes', tags: ['storage'], querystring: VolumesQuery, response: { 200: ListOf(Volume) } },
      config: { requires: ['storage.canListVolumes'] },
    },
    async (request) => everything(await service.volumes(request.query.include_windows)),
  )

  app.get(
    '/data-usage',
    {
      schema: { summary: "Get how much space Hearth's data uses", tags: ['storage'], response: { 200: ListOf(DataUsageCategory) } },
      config: { requires: ['storage.canGetDataUsage'] },
    },
    async () => everything(await service.dataUsage()),
  )
}
