import { Type } from '@sinclair/typebox'
import { ListOf, Nullable, type PluginInstance, Single, Timestamp } from '../../../core/plugin-api.js'
import type { DnsServices } from '../services/index.js'

/** /dns/ddns: status, change log, check-now. */
const ZoneUpdate = Type.Object({ zone_id: Type.String(), zone: Type.String(), records: Type.Array(Type.String()) })

const Status = Type.Object({
  enabled: Type.Boolean(),
  current_ip: Nullable(Type.String()),
  last_check_at: Nullable(Timestamp),
  last_change_at: Nullable(Timestamp),
  next_check_at: Nullable(Timestamp),
  zones: Type.Array(Type.Object({ id: Type.String(), zone: Type.String(), record_ids: Type.Array(Type.String()) })),
})

const LogEntry = Type.Object({
  id: Type.String(),
  previous_ip: Nullable(Type.String()),
  new_ip: Type.String(),
  detected_at: Timestamp,
  zones_updated: Type.Array(ZoneUpdate),
  error: Nullable(Type.String()),
})

const Check = Type.Object({
  checked_at: Timestamp,
  ip: Nullable(Type.String()),
  previous_ip: Nullable(Type.String()),
  changed: Type.Boolean(),
  zones_updated: Type.Array(ZoneUpdate),
  error: Nullable(Type.String()),
})

export async function ddnsRoutes(app: PluginInstance, s: DnsServices) {
  app.get(
    '/ddns/status',
    { schema: { summary: 'Get the state of dynamic DNS', tags: ['dns'], response: { 200: Single(Status) } } },
    async (req) => s.ddns.status(req.userId),
  )

  app.get(
    '/ddns/log',
    {
      schema: {
        summary: 'List recent dynamic DNS updates',
        tags: ['dns'],
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 20 }) }),
        response: { 200: ListOf(LogEntry) },
      },
    },
    async (req) => {
      const items = s.ddns.log(req.userId, req.query.limit)
      return { items, total: items.length }
    },
  )

  app.post(
    '/ddns/check-now',
    {
      config: { errors: ['SERVICE_UNAVAILABLE'] },
      schema: { summary: 'Check the public address now and update names that changed', tags: ['dns'], response: { 200: Single(Check) } },
    },
    async (req) => s.ddns.checkFor(req.userId),
  )
}
