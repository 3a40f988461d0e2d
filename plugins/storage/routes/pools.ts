import { everything, ListOf, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { CreatePoolBody, Pool } from '../schemas.js'
import type { StorageService } from '../service.js'

/** RAID pools: listed by every driver (empty on linux-basic), created only by one that can (else 422). */
export async function poolRoutes(app: PluginInstance, { service }: { service: StorageService }): Promise<void> {
  app.get(
    '/pools',
    {
      config: { errors: ['SERVICE_UNAVAILABLE'] },
      schema: { summary: 'List RAID pools', tags: ['storage'], response: { 200: ListOf(Pool) } },
    },
    async () => everything(await service.pools()),
  )

  app.post(
    '/pools',
    {
      schema: { summary: 'Create a RAID pool', tags: ['storage'], body: CreatePoolBody, response: { 201: Single(Pool) } },
      config: { requires: ['storage.canCreatePool'], role: 'admin', errors: ['CONFLICT'] },
    },
    async (request, reply) => {
      reply.code(201)
      return service.createPool(request.body)
    },
  )
}
