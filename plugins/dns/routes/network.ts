import { Type } from '@sinclair/typebox'
import { Nullable, type PluginInstance, Single, Timestamp } from '../../../core/plugin-api.js'
import type { DnsServices } from '../services/index.js'

/** /dns/network/* and /dns/service-subdomain: what the outside world sees. */
export async function networkRoutes(app: PluginInstance, s: DnsServices) {
  app.get('/network/public-ip', { schema: { tags: ['dns'], response: { 200: Single(Type.Object({ ip: Type.String() })) } } }, async () =>
    s.diagnostics.publicIp(),
  )

  app.get(
    '/network/port53-check',
    {
      schema: {
        tags: ['dns'],
        response: { 200: Single(Type.Object({ udp: Nullable(Type.Boolean()), tcp: Nullable(Type.Boolean()), checked_at: Timestamp })) },
      },
    },
    async () => s.diagnostics.port53(),
  )

  app.get(
    '/network/ip-type',
    {
      schema: {
        tags: ['dns'],
        response: {
          200: Single(
            Type.Object({
              type: Type.Union([Type.Literal('static'), Type.Literal('dynamic'), Type.Literal('unknown')]),
              changes: Type.Integer(),
              window_days: Type.Integer(),
            }),
          ),
        },
      },
    },
    async () => s.ddns.ipType(),
  )

  app.get(
    '/service-subdomain',
    {
      schema: {
        tags: ['dns'],
        response: {
          200: Single(
            Type.Object({
              subdomain: Nullable(Type.String()),
              instance_ip: Nullable(Type.String()),
              active: Type.Boolean(),
              expiry: Nullable(Type.String()),
            }),
          ),
        },
      },
    },
    async () => s.diagnostics.serviceSubdomain(),
  )
}
