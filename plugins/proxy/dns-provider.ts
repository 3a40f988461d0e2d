import { type HearthApi, HttpError, preparedOnUse } from '../../core/plugin-api.js'
import { checkCredentials, viaProvider } from '../../drivers/dns-providers/api-errors.js'
import { type DnsProviderDriver, type ProviderRecord, providers } from '../../drivers/dns-providers/index.js'
import type { ProxyConfig } from './config.js'
import { normalizeDomain } from './validate.js'

interface Row {
  provider: string
  credentials: string
  zone: string | null
  last_tested_at: string | null
  connected: number | null
}

export interface DnsProviderView {
  provider: string | null
  configured: boolean
  zone: string | null
  last_tested_at: string | null
  connected: boolean | null
}

/**
 * The proxy's DNS-provider integration (docs/api.md): one provider account, with the providers and
 * credential keys of DNS provider accounts, stored encrypted and never returned; it will answer DNS-01
 * challenges for wildcard and LAN-only certificates. Base URLs come from instance config.
 */
export function dnsProviderService(api: HearthApi<typeof ProxyConfig>) {
  const q = preparedOnUse(api.db, {
    get: 'SELECT * FROM proxy_dns_provider WHERE id = 1',
    put: `INSERT INTO proxy_dns_provider (id, provider, credentials, zone, last_tested_at, connected, updated_at)
    VALUES (1, @provider, @credentials, @zone, @last_tested_at, @connected, @updated_at)
    ON CONFLICT (id) DO UPDATE SET provider = @provider, credentials = @credentials, zone = @zone,
      last_tested_at = @last_tested_at, connected = @connected, updated_at = @updated_at`,
  })
  const baseUrls: Record<string, string> = {
    cloudflare: api.config.cloudflareUrl,
    porkbun: api.config.porkbunUrl,
    namecheap: api.config.namecheapUrl,
    digitalocean: api.config.digitaloceanUrl,
  }
  const driver = (provider: string, credentials: Record<string, string>): DnsProviderDriver =>
    (providers.get(provider) as NonNullable<ReturnType<typeof providers.get>>).create({
      baseUrl: baseUrls[provider] ?? '',
      credentials,
      timeoutMs: api.config.providerTimeoutMs,
    })
  const view = (row: Row | undefined): DnsProviderView =>
    row
      ? {
          provider: row.provider,
          configured: true,
          zone: row.zone,
          last_tested_at: row.last_tested_at,
          connected: row.connected === null ? null : row.connected === 1,
        }
      : { provider: null, configured: false, zone: null, last_tested_at: null, connected: null }

  return {
    config: () => view(q.get.get() as Row | undefined),

    /** Stores the account after one real call: the credentials must work, and the zone must be one the account holds. */
    async configure(body: { provider: string; credentials: Record<string, string>; zone?: string | null }): Promise<DnsProviderView> {
      checkCredentials(body.provider, body.credentials)
      const credentials = Object.fromEntries(Object.entries(body.credentials).map(([k, v]) => [k, v.trim()]))
      const zone = body.zone ? normalizeDomain(body.zone) : null
      const client = driver(body.provider, credentials)
      const connected = await client.testConnection()
      if (connected && zone && !(await viaProvider(() => client.listZones())).some((z) => z.name === zone)) {
        throw new HttpError('UNPROCESSABLE', `the ${body.provider} account holds no zone ${zone}`, { field: 'zone' })
      }
      const at = new Date(api.now()).toISOString()
      q.put.run({
        provider: body.provider,
        credentials: api.secrets.encrypt(JSON.stringify(credentials)),
        zone,
        last_tested_at: at,
        connected: connected ? 1 : 0,
        updated_at: at,
      })
      return view(q.get.get() as Row)
    },

    /** Whether the integration's zone holds this name. */
    covers(name: string): boolean {
      const zone = (q.get.get() as Row | undefined)?.zone
      return Boolean(zone && (name === zone || name.endsWith(`.${zone}`)))
    },

    /** Writes a DNS-01 TXT record at the provider; answers how to remove it, or null when the name is not in the zone. */
    async addChallenge(name: string, value: string): Promise<(() => Promise<void>) | null> {
      const row = q.get.get() as Row | undefined
      if (!row?.zone || !(name === row.zone || name.endsWith(`.${row.zone}`))) return null
      const client = driver(row.provider, JSON.parse(api.secrets.decrypt(row.credentials)) as Record<string, string>)
      const zone = (await viaProvider(() => client.listZones())).find((z) => z.name === row.zone)
      if (!zone) return null
      const relative = name === row.zone ? '@' : name.slice(0, -(row.zone.length + 1))
      const record = await viaProvider(() =>
        client.createRecord(zone, { type: 'TXT', name: relative, content: value, ttl: 60, priority: null, proxied: false }),
      )
      return async () => {
        await client.deleteRecord(zone, record.id).catch(() => undefined)
      }
    },

    /** The records of the configured zone, as the provider holds them. */
    async records(): Promise<ProviderRecord[]> {
      const row = q.get.get() as Row | undefined
      if (!row) throw new HttpError('UNPROCESSABLE', 'no DNS provider is configured (PUT /proxy/dns-provider/config)')
      if (!row.zone) throw new HttpError('UNPROCESSABLE', 'the DNS provider integration has no zone')
      const client = driver(row.provider, JSON.parse(api.secrets.decrypt(row.credentials)) as Record<string, string>)
      const zone = (await viaProvider(() => client.listZones())).find((z) => z.name === row.zone)
      if (!zone) throw new HttpError('UNPROCESSABLE', `the ${row.provider} account no longer holds ${row.zone}`)
      return viaProvider(() => client.listRecords(zone))
    },
  }
}

export type DnsProviderService = ReturnType<typeof dnsProviderService>
