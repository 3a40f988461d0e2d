import { HttpError } from '../../core/plugin-api.js'

/**
 * The service subdomain (pro): a name under the vendor's domain that points at this box. Hearth
 * speaks a small JSON protocol to the endpoint in HEARTH_SERVICE_SUBDOMAIN_URL (docs/api.md):
 *   GET  <url>                      → 200 { subdomain, instance_ip, active, expiry }
 *   POST <url>  { name? }           → 200 or 201, the same object; 409 when the name is taken
 * The service reads the instance's address from the request itself.
 */
export interface SubdomainStatus {
  subdomain: string | null
  instance_ip: string | null
  active: boolean
  expiry: string | null
}

const INACTIVE: SubdomainStatus = { subdomain: null, instance_ip: null, active: false, expiry: null }

function shape(body: unknown): SubdomainStatus {
  const b = (body ?? {}) as Record<string, unknown>
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  return { subdomain: str(b.subdomain), instance_ip: str(b.instance_ip), active: b.active === true, expiry: str(b.expiry) }
}

export function subdomainService(baseUrl: string, timeoutMs: number) {
  const call = async (init: RequestInit): Promise<Response> => {
    try {
      return await fetch(baseUrl, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) })
    } catch {
      throw new HttpError('SERVICE_UNAVAILABLE', 'the service-subdomain endpoint did not answer')
    }
  }
  const read = async (res: Response): Promise<SubdomainStatus> => {
    try {
      return shape(await res.json())
    } catch {
      throw new HttpError('SERVICE_UNAVAILABLE', 'the service-subdomain endpoint answered something other than JSON')
    }
  }
  return {
    async status(): Promise<SubdomainStatus> {
      if (!baseUrl) return INACTIVE
      const res = await call({ method: 'GET', headers: { accept: 'application/json' } })
      if (res.status === 404) return INACTIVE
      if (!res.ok) throw new HttpError('SERVICE_UNAVAILABLE', `the service-subdomain endpoint answered ${res.status}`)
      return read(res)
    },
    async request(name: string | null): Promise<SubdomainStatus> {
      if (!baseUrl) throw new HttpError('SERVICE_UNAVAILABLE', 'no service-subdomain endpoint is configured (HEARTH_SERVICE_SUBDOMAIN_URL)')
      const res = await call({
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(name ? { name } : {}),
      })
      if (res.status === 409) throw new HttpError('CONFLICT', `the subdomain ${name ?? ''} is taken`.trim())
      if (!res.ok) throw new HttpError('SERVICE_UNAVAILABLE', `the service-subdomain endpoint answered ${res.status}`)
      return read(res)
    },
  }
}
