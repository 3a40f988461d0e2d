import { type Static, Type } from '@sinclair/typebox'
import { env } from '../../lib/config-env.js'

/**
 * The DNS plugin's config slice. Every outside service it calls has its URL
 * here so tests (and air-gapped appliances) point it at local servers.
 */
const url = (name: string, fallback: string) => env(name, Type.String({ default: fallback }))

export const DnsConfig = Type.Object({
  port: env('HEARTH_DNS_PORT', Type.Integer({ minimum: 0, maximum: 65535, default: 53 })),
  host: env('HEARTH_DNS_HOST', Type.String({ minLength: 1, default: '0.0.0.0' })),
  /** UDP answers per second per source prefix (/24, /56) before rate limiting; 0 disables it. Loopback is exempt. */
  rateLimit: env('HEARTH_DNS_RATE_LIMIT', Type.Integer({ minimum: 0, maximum: 1_000_000, default: 50 })),
  /** Name servers written into new authoritative zones; empty means ns1.<zone>. */
  nameservers: env('HEARTH_DNS_NAMESERVERS', Type.Array(Type.String({ pattern: '^[A-Za-z0-9_.-]+\\.?$' }), { default: [] })),
  cloudflareUrl: url('HEARTH_CLOUDFLARE_API_URL', 'https://api.cloudflare.com/client/v4'),
  porkbunUrl: url('HEARTH_PORKBUN_API_URL', 'https://api.porkbun.com/api/json/v3'),
  namecheapUrl: url('HEARTH_NAMECHEAP_API_URL', 'https://api.namecheap.com/xml.response'),
  digitaloceanUrl: url('HEARTH_DIGITALOCEAN_API_URL', 'https://api.digitalocean.com/v2'),
  /** Plain-text IP echo services; the answer of a majority wins. */
  publicIpSources: env(
    'HEARTH_PUBLIC_IP_SOURCES',
    Type.Array(Type.String({ minLength: 1 }), {
      minItems: 2,
      default: ['https://api.ipify.org', 'https://ifconfig.me/ip', 'https://icanhazip.com'],
    }),
  ),
  /** GET <url>?port=53&ip=<public ip> → { udp: boolean, tcp: boolean }; empty: not configured. */
  port53CheckerUrl: url('HEARTH_PORT53_CHECKER_URL', ''),
  /** Resolvers asked for a zone's NS (host:port). */
  resolvers: env(
    'HEARTH_DNS_RESOLVERS',
    Type.Array(Type.String({ pattern: '^(\\[[0-9a-fA-F:.]+\\]|[^:\\s\\[\\]]+)(:\\d{1,5})?$' }), {
      minItems: 1,
      default: ['1.1.1.1:53', '8.8.8.8:53'],
    }),
  ),
  /** GET <url> → { subdomain, instance_ip, active, expiry }; empty: not configured. */
  serviceSubdomainUrl: url('HEARTH_SERVICE_SUBDOMAIN_URL', ''),
  /** node-cron expressions. */
  ddnsCron: env('HEARTH_DDNS_CRON', Type.String({ default: '*/5 * * * *' })),
  nsPollCron: env('HEARTH_DNS_NS_POLL_CRON', Type.String({ default: '*/10 * * * *' })),
  /** How long a zone's delegation may stay unseen before it is reported 'failed'. */
  nsPollHours: env('HEARTH_DNS_NS_POLL_HOURS', Type.Integer({ minimum: 1, default: 72 })),
  /** Time-out of each outside call, in milliseconds. */
  outboundTimeoutMs: env('HEARTH_DNS_OUTBOUND_TIMEOUT_MS', Type.Integer({ minimum: 100, default: 5000 })),
})
export type DnsConfig = Static<typeof DnsConfig>
