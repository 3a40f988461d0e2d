/**
 * The DnsProviderDriver contract: one interface every external DNS provider
 * (cloudflare, porkbun, namecheap, digitalocean) implements over its own
 * documented HTTP API.
 *
 * Unlike HAL kinds (one active driver per machine), several provider accounts
 * live side by side, each with its own credentials, so a provider module is a
 * factory: `create({ baseUrl, credentials })` gives a client bound to one
 * account. The plugin keeps the modules in a registry keyed by provider name.
 */

/** Record types the plugin manages; a provider's other types (SOA, URL...) are skipped on import. */
export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'SRV', 'CAA', 'NS'] as const
export type RecordType = (typeof RECORD_TYPES)[number]

/** A zone as the provider knows it: Cloudflare addresses zones by id, the others by name. */
export interface ProviderZone {
  id: string
  name: string
}

/**
 * A record in the plugin's neutral form.
 * - `name` is relative to the zone, '@' for the apex ('www', '_dmarc', '_sip._tcp').
 * - host-name contents (CNAME, NS, MX target, SRV target) have no trailing dot.
 * - SRV `content` is 'weight port target' with the priority apart; CAA is 'flags tag value'.
 */
export interface RecordInput {
  type: RecordType
  name: string
  content: string
  ttl: number
  priority: number | null
  proxied: boolean
}

export interface ProviderRecord extends RecordInput {
  /** The provider's own record id, as a string. */
  id: string
}

export interface DnsProviderDriver {
  /** One authenticated call; false when the provider refuses the credentials or cannot be reached. */
  testConnection(): Promise<boolean>
  listZones(): Promise<ProviderZone[]>
  listRecords(zone: ProviderZone): Promise<ProviderRecord[]>
  createRecord(zone: ProviderZone, record: RecordInput): Promise<ProviderRecord>
  /** Returns the record as stored; its id may differ from `id` (Namecheap renumbers on every write). */
  updateRecord(zone: ProviderZone, id: string, record: RecordInput): Promise<ProviderRecord>
  deleteRecord(zone: ProviderZone, id: string): Promise<void>
}

export interface ProviderSettings {
  /** The provider's API base URL (configurable so tests point it at a local server). */
  baseUrl: string
  credentials: Record<string, string>
  /** Per-request time-out; default 15 s. */
  timeoutMs?: number
}

export interface DnsProviderModule {
  /** Lowercase identifier used in the API: 'cloudflare', 'porkbun', 'namecheap', 'digitalocean'. */
  name: string
  /** Credential keys that must be present (non-empty strings), in the spec's order. */
  credentialKeys: readonly string[]
  /** Record types the provider's API can hold; others are refused before any call. */
  recordTypes: readonly RecordType[]
  create(settings: ProviderSettings): DnsProviderDriver
}

export function defineProvider(module: DnsProviderModule): DnsProviderModule {
  return module
}

/**
 * Why a provider call failed. The messages never carry credentials or URLs
 * (Namecheap puts its key in the query string).
 * - auth: the provider refused the credentials
 * - not_found: zone or record unknown at the provider
 * - rejected: the provider refused the request (its validation)
 * - unreachable: network failure or time-out
 * - bad_response: the reply was not the documented shape
 * - unsupported: the provider's API cannot hold this record type
 */
export type ProviderErrorKind = 'auth' | 'not_found' | 'rejected' | 'unreachable' | 'bad_response' | 'unsupported'

export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly kind: ProviderErrorKind,
    message: string,
    /** The provider's HTTP status, when it answered. */
    readonly upstreamStatus: number | null = null,
  ) {
    super(message)
    this.name = 'ProviderError'
  }
}
