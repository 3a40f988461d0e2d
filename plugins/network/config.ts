import { type Static, Type } from '@sinclair/typebox'
import { env } from '../../lib/config-env.js'

/** The network plugin's config slice: the outside targets it measures are config, so tests point them at local servers. */
export const NetworkConfig = Type.Object({
  /** HTTPS URLs asked for connectivity: any HTTP answer from one of them means online. */
  connectivityTargets: env(
    'HEARTH_CONNECTIVITY_TARGETS',
    Type.Array(Type.String({ pattern: '^https?://' }), {
      minItems: 1,
      default: ['https://1.1.1.1/', 'https://dns.google/', 'https://www.cloudflare.com/cdn-cgi/trace'],
    }),
  ),
  /** How long one connectivity result is served before it is measured again. */
  connectivityCacheMs: env('HEARTH_CONNECTIVITY_CACHE_MS', Type.Integer({ minimum: 0, default: 30_000 })),
  connectivityTimeoutMs: env('HEARTH_CONNECTIVITY_TIMEOUT_MS', Type.Integer({ minimum: 100, default: 3000 })),
  /** Where the kernel lists network devices (an appliance image with another layout, or a captured tree in tests). */
  sysfsRoot: env('HEARTH_NETWORK_SYSFS', Type.String({ default: '/sys/class/net' })),
})
export type NetworkConfig = Static<typeof NetworkConfig>
