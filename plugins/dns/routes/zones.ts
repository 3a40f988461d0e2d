import { ListOf, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { DdnsBody, Deleted, NsResult, Zone, ZoneBody, ZoneParams } from '../schemas.js'
import type { DnsServices } from '../services/index.js'

/** /dns/zones: list, get, create, delete, sync, DDNS selection, NS verification. */
export async function zoneRoutes(app: PluginInstance, s: DnsServices) {
  const user = (req: { auth: { userId: string | null } }) => req.auth.userId as string

  app.get('/zones', { schema: { tags: ['dns'], response: { 200: ListOf(Zone) } }, config: { envelope: 'list' } }, async (req) => {
    const items = s.zones.list(user(req))
    return { items, total: items.length }
  })

  app.get('/zones/:id', { schema: { tags: ['dns'], params: ZoneParams, response: { 200: Single(Zone) } } }, async (req) =>
    s.zones.get(user(req), req.params.id),
  )

  app.post('/zones', { schema: { tags: ['dns'], body: ZoneBody, response: { 201: Single(Zone) } } }, async (req, reply) => {
    const zone = await s.zones.create(user(req), req.body)
    reply.code(201)
    return zone
  })

  app.delete('/zones/:id', { schema: { tags: ['dns'], params: ZoneParams, response: { 200: Single(Deleted) } } }, async (req) =>
    s.zones.remove(user(req), req.params.id),
  )

  app.post('/zones/:id/sync', { schema: { tags: ['dns'], params: ZoneParams, response: { 200: Single(Zone) } } }, async (req) =>
    s.zones.sync(user(req), req.params.id),
  )

  app.patch(
    '/zones/:id/ddns',
    { schema: { tags: ['dns'], params: ZoneParams, body: DdnsBody, response: { 200: Single(Zone) } } },
    async (req) => s.zones.setDdns(user(req), req.params.id, req.body),
  )

  app.post('/zones/:id/verify-ns', { schema: { tags: ['dns'], params: ZoneParams, response: { 200: Single(NsResult) } } }, async (req) =>
    s.ns.verify(user(req), req.params.id),
  )
}
