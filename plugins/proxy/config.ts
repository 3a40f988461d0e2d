import { type Static, Type } from '@sinclair/typebox'
import { env } from '../../lib/config-env.js'

const port = (name: string, fallback: number) => env(name, Type.Integer({ minimum: 1, maximum: 65535, default: fallback }))

/** docs/api.md (proxy): where Caddy's admin API is and where it serves routes. */
export const ProxyConfig = Type.Object({
  /** Loopback or a unix socket only: Caddy's admin API has no authentication. */
  caddyAdmin: env(
    'HEARTH_CADDY_ADMIN',
    Type.String({ pattern: '^(unix:/.+|http://(127\\.0\\.0\\.1|localhost|\\[::1\\])(:\\d{1,5})?/?)$', default: 'http://127.0.0.1:2019' }),
  ),
  httpPort: port('HEARTH_PROXY_HTTP_PORT', 80),
  httpsPort: port('HEARTH_PROXY_HTTPS_PORT', 443),
  acmeDirectory: env(
    'HEARTH_ACME_DIRECTORY',
    Type.String({ pattern: '^https?://', default: 'https://acme-v02.api.letsencrypt.org/directory' }),
  ),
  acmeEmail: env('HEARTH_ACME_EMAIL', Type.String({ default: '' })),
  /** A PEM file of extra roots to trust for the ACME server (a test CA); empty: the system's. */
  acmeCaRoot: env('HEARTH_ACME_CA_ROOT', Type.String({ default: '' })),
  /** DNS provider API base URLs, the same variables as the DNS plugin's (tests point them at local servers). */
  cloudflareUrl: env('HEARTH_CLOUDFLARE_API_URL', Type.String({ default: 'https://api.cloudflare.com/client/v4' })),
  porkbunUrl: env('HEARTH_PORKBUN_API_URL', Type.String({ default: 'https://api.porkbun.com/api/json/v3' })),
  namecheapUrl: env('HEARTH_NAMECHEAP_API_URL', Type.String({ default: 'https://api.namecheap.com/xml.response' })),
  digitaloceanUrl: env('HEARTH_DIGITALOCEAN_API_URL', Type.String({ default: 'https://api.digitalocean.com/v2' })),
  /** The vendor's service-subdomain endpoint (protocol in subdomain.ts); empty: none. */
  serviceSubdomainUrl: env('HEARTH_SERVICE_SUBDOMAIN_URL', Type.String({ default: '' })),
  providerTimeoutMs: env('HEARTH_DNS_OUTBOUND_TIMEOUT_MS', Type.Integer({ minimum: 100, default: 5000 })),
  /** How often Caddy is asked whether it still serves Hearth's config (a restarted Caddy has lost it). */
  reconcileMs: env('HEARTH_PROXY_RECONCILE_MS', Type.Integer({ minimum: 50, default: 5000 })),
})
export type ProxyConfig = Static<typeof ProxyConfig>
