import { Type } from '@sinclair/typebox'
import { Nullable, type PluginInstance, Single, StringEnum, Timestamp } from '../../../core/plugin-api.js'
import type { DnsServices } from '../services/index.js'

/** /dns/network/* and /dns/service-subdomain: what the outside world sees. */
export async function networkRoutes(app: PluginInstance, s: DnsServices) {
  app.get(
    '/network/public-ip',
    {
      config: { errors: ['SERVICE_UNAVAILABLE'] },
      schema: {
        summary: "Get the appliance's public IP addresses",
        tags: ['dns'],
        response: { 200: Single(Type.Object({ ip: Type.String() })) },
      },
    },
    async () => s.diagnostics.publicIp(),
  )

  app.get(
    '/network/port53-check',
    {
      config: { errors: ['SERVICE_UNAVAILABLE'] },
      schema: {
        summary: 'Check whether port 53 is reachable from the internet',
        tags: ['dns'],
        response: { 200: Single(Type.Object({ udp: Nullable(Type.Boolean()), tcp: Nullable(Type.Boolean()), checked_at: Timestamp })) },
      },
    },
    async () => s.diagnostics.port53(),
  )

  app.get(
    '/network/ip-type',
    {
      config: { errors: ['SERVICE_UNAVAILABLE'] },
      schema: {
        summary: 'Tell whether the public address is static or dynamic',
        tags: ['dns'],
        response: {
          200: Single(
            Type.Object({
              type: StringEnum(['static', 'dynamic', 'unknown'] as const),
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
      // The subdomain service not configured or not answering.
      config: { errors: ['SERVICE_UNAVAILABLE'] },
      schema: {
        summary: 'Get the subdomain the appliance holds at the subdomain service',
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
