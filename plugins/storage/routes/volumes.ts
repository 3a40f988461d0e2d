import { Type } from '@sinclair/typebox'
import { type PluginInstance, Single } from '../../../core/plugin-api.js'
import { DataUsageCategory, Volume, VolumesQuery } from '../schemas.js'
import type { StorageService } from '../service.js'

/** Mounted volumes, and how much each data category takes (cached 5 minutes). */
export async function volumeRoutes(app: PluginInstance, { service }: { service: StorageService }): Promise<void> {
  app.get(
    '/volumes',
    {
      schema: { tags: ['storage'], querystring: VolumesQuery, response: { 200: Single(Type.Array(Volume)) } },
      config: { requires: ['storage.canListVolumes'] },
    },
    async (request) => service.volumes(request.query.include_windows),
  )

  app.get(
    '/data-usage',
    {
      schema: { tags: ['storage'], response: { 200: Single(Type.Array(DataUsageCategory)) } },
      config: { requires: ['storage.canGetDataUsage'] },
    },
    async () => service.dataUsage(),
  )
}
