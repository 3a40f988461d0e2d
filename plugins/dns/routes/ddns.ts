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
  const user = (req: { auth: { userId: string | null } }) => req.auth.userId as string

  app.get('/ddns/status', { schema: { tags: ['dns'], response: { 200: Single(Status) } } }, async (req) => s.ddns.status(user(req)))

  app.get(
    '/ddns/log',
    {
      schema: {
        tags: ['dns'],
        querystring: Type.Object({ limit: Type.Integer({ minimum: 1, maximum: 200, default: 20 }) }),
        response: { 200: ListOf(LogEntry) },
      },
      config: { envelope: 'list' },
    },
    async (req) => {
      const items = s.ddns.log(user(req), req.query.limit)
      return { items, total: items.length }
    },
  )

  app.post('/ddns/check-now', { schema: { tags: ['dns'], response: { 200: Single(Check) } } }, async (req) => s.ddns.checkFor(user(req)))
}
