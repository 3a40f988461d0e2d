import { HttpError } from '../../../core/plugin-api.js'
import type { DnsContext } from './context.js'
import { majorityIp } from './public-ip.js'

/**
 * Network diagnostics that ask outside services, each at a configured URL:
 * - public IP: the majority of HEARTH_PUBLIC_IP_SOURCES (cached a minute)
 * - port 53: GET <HEARTH_PORT53_CHECKER_URL>?port=53&ip=<public ip> answering
 *   { udp: boolean, tcp: boolean }; null for both when it cannot be asked
 * - service subdomain: GET <HEARTH_SERVICE_SUBDOMAIN_URL>?instance_ip=<ip>
 *   answering { subdomain, instance_ip, active, expiry }
 */
const PUBLIC_IP_TTL_MS = 60_000

async function getJson(url: string, timeoutMs: number): Promise<Record<string, unknown> | null> {
  try {
    const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) })
    if (!res.ok) return null
    const body = (await res.json()) as unknown
    return body && typeof body === 'object' ? (body as Record<string, unknown>) : null
  } catch {
    return null
  }
}

const withQuery = (base: string, params: Record<string, string>) => {
  const url = new URL(base)
  for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v)
  return url.toString()
}

export function diagnostics(ctx: DnsContext) {
  const cache = ctx.api.cache<string>({ ttlMs: PUBLIC_IP_TTL_MS })
  const timeout = ctx.config.outboundTimeoutMs

  const publicIp = async (): Promise<{ ip: string }> => ({
    ip: await cache.getOrCompute('ip', async () => (await majorityIp(ctx.config.publicIpSources, timeout)).ip),
  })
  const knownIp = async () => (await publicIp().catch(() => null))?.ip ?? ctx.ddns.lastGood()?.ip ?? ''

  return {
    publicIp,
    async port53(): Promise<{ udp: boolean | null; tcp: boolean | null; checked_at: string }> {
      const checked_at = ctx.iso()
      if (!ctx.config.port53CheckerUrl) return { udp: null, tcp: null, checked_at }
      const body = await getJson(withQuery(ctx.config.port53CheckerUrl, { port: '53', ip: await knownIp() }), timeout)
      const flag = (v: unknown) => (typeof v === 'boolean' ? v : null)
      return { udp: flag(body?.udp), tcp: flag(body?.tcp), checked_at }
    },
    async serviceSubdomain() {
      if (!ctx.config.serviceSubdomainUrl) {
        return { subdomain: null, instance_ip: ctx.ddns.lastGood()?.ip ?? null, active: false, expiry: null }
      }
      const body = await getJson(withQuery(ctx.config.serviceSubdomainUrl, { instance_ip: await knownIp() }), timeout)
      if (!body) throw new HttpError('SERVICE_UNAVAILABLE', 'The service-subdomain endpoint did not answer')
      const str = (v: unknown) => (typeof v === 'string' ? v : null)
      return { subdomain: str(body.subdomain), instance_ip: str(body.instance_ip), active: body.active === true, expiry: str(body.expiry) }
    },
  }
}
export type Diagnostics = ReturnType<typeof diagnostics>
