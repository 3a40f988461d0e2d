import { ListOf, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { DdnsBody, Deleted, NsResult, Zone, ZoneBody, ZoneParams } from '../schemas.js'
import type { DnsServices } from '../services/index.js'

/** /dns/zones: list, get, create, delete, sync, DDNS selection, NS verification. */
export async function zoneRoutes(app: PluginInstance, s: DnsServices) {
  app.get('/zones', { schema: { summary: 'List DNS zones', tags: ['dns'], response: { 200: ListOf(Zone) } } }, async (req) => {
    const items = s.zones.list(req.userId)
    return { items, total: items.length }
  })

  app.get(
    '/zones/:id',
    { schema: { summary: 'Get a DNS zone', tags: ['dns'], params: ZoneParams, response: { 200: Single(Zone) } } },
    async (req) => s.zones.get(req.userId, req.params.id),
  )

  app.post(
    '/zones',
    {
      config: { errors: ['CONFLICT', 'UNPROCESSABLE', 'PROVIDER_ERROR', 'SERVICE_UNAVAILABLE'] },
      schema: {
        summary: 'Create a DNS zone',
        description:
          "An authoritative zone is served by Hearth's DNS server; a proxy zone is kept at a DNS provider account. A zone another user holds answers 409.",
        tags: ['dns'],
        body: ZoneBody,
        response: { 201: Single(Zone) },
      },
    },
    async (req, reply) => {
      const zone = await s.zones.create(req.userId, req.body)
      reply.code(201)
      return zone
    },
  )

  app.delete(
    '/zones/:id',
    {
      config: { errors: ['PROVIDER_ERROR'] },
      schema: { summary: 'Delete a DNS zone and its records', tags: ['dns'], params: ZoneParams, response: { 200: Single(Deleted) } },
    },
    async (req) => s.zones.remove(req.userId, req.params.id),
  )

  app.post(
    '/zones/:id/sync',
    {
      config: { errors: ['UNPROCESSABLE', 'PROVIDER_ERROR'] },
      schema: { summary: 'Synchronise a proxy zone with its provider', tags: ['dns'], params: ZoneParams, response: { 200: Single(Zone) } },
    },
    async (req) => s.zones.sync(req.userId, req.params.id),
  )

  app.patch(
    '/zones/:id/ddns',
    {
      config: { errors: ['UNPROCESSABLE'] },
      schema: {
        summary: 'Turn dynamic DNS on or off for names of a zone',
        tags: ['dns'],
        params: ZoneParams,
        body: DdnsBody,
        response: { 200: Single(Zone) },
      },
    },
    async (req) => s.zones.setDdns(req.userId, req.params.id, req.body),
  )

  app.post(
    '/zones/:id/verify-ns',
    {
      config: { errors: ['UNPROCESSABLE'] },
      schema: {
        summary: 'Check that the parent zone delegates to this server',
        tags: ['dns'],
        params: ZoneParams,
        response: { 200: Single(NsResult) },
      },
    },
    async (req) => s.ns.verify(req.userId, req.params.id),
  )
}
