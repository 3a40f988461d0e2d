import { X509Certificate } from 'node:crypto'
import { type HearthApi, HttpError } from '../../core/plugin-api.js'
import type { ProxyDriver } from '../../drivers/proxy/driver.js'
import { mapLimit } from '../../lib/map-limit.js'
import type { Dns01Service } from './dns01.js'
import type { ProxyService } from './service.js'

export interface SslEntry {
  domain: string
  issuer: string | null
  not_before: string | null
  not_after: string | null
  days_left: number | null
  auto_renew: boolean
  status: 'valid' | 'expiring' | 'expired' | 'pending' | 'error'
  error: string | null
}

const DAY = 86_400_000
/** docs/api.md: expiring means under 30 days left. */
const EXPIRING_DAYS = 30

/**
 * Under 30 days left, or, for short-lived certificates (Caddy's local CA issues 12-hour ones), past
 * the last third of their life, when Caddy renews them: a fresh 12-hour certificate is not expiring.
 */
function expiring(cert: X509Certificate, notAfter: number, now: number): boolean {
  const lifetime = notAfter - Date.parse(cert.validFrom)
  return notAfter - now < Math.min(EXPIRING_DAYS * DAY, lifetime / 3)
}

/** The CN of an X.509 issuer ("C=US\nO=…\nCN=Pebble Intermediate CA"), else the whole name on one line. */
const commonName = (name: string) =>
  name
    .split('\n')
    .find((part) => part.startsWith('CN='))
    ?.slice(3) ?? name.replace(/\n/g, ', ')

/**
 * One entry per HTTPS route, read from the certificate Caddy serves for its name (a TLS handshake,
 * through the driver; a few at a time): `pending` before the first issuance, `error` with the reason
 * while Caddy refuses the route, reported an issuance failure, or cannot be reached.
 */
export async function sslStatus(api: HearthApi, proxy: ProxyService, dns01: Dns01Service): Promise<SslEntry[]> {
  const routes = proxy.list().filter((r) => r.ssl && r.enabled)
  const failures = await api.hal
    .with<ProxyDriver, Map<string, string>>('proxy', (d) => d.issuanceErrors())
    .catch(() => new Map<string, string>())
  return mapLimit(routes, 8, async (route): Promise<SslEntry> => {
    // A certificate Hearth obtained itself (DNS-01) first, else the one Caddy manages.
    const own = dns01.status(route.domain)
    const pem =
      own?.pem ??
      (own ? null : await api.hal.with<ProxyDriver, string | null>('proxy', (d) => d.certificate(route.domain)).catch(() => null))
    const problem =
      route.error ??
      (own && !own.pem && !own.issuing ? own.error : null) ??
      (!own && !pem ? (failures.get(route.domain) ?? null) : null) ??
      (proxy.state.reachable === false ? `Caddy is unreachable: ${proxy.state.error}` : null)
    if (!pem) {
      const status = problem ? 'error' : 'pending'
      return {
        domain: route.domain,
        issuer: null,
        not_before: null,
        not_after: null,
        days_left: null,
        auto_renew: true,
        status,
        error: problem,
      }
    }
    const cert = new X509Certificate(pem)
    const notAfter = Date.parse(cert.validTo)
    const daysLeft = Math.floor((notAfter - api.now()) / DAY)
    return {
      domain: route.domain,
      issuer: commonName(cert.issuer),
      not_before: new Date(Date.parse(cert.validFrom)).toISOString(),
      not_after: new Date(notAfter).toISOString(),
      days_left: daysLeft,
      auto_renew: true,
      status: notAfter <= api.now() ? 'expired' : expiring(cert, notAfter, api.now()) ? 'expiring' : 'valid',
      error: problem,
    }
  })
}

/** Caddy's local root (for LAN names), with its SHA-256 fingerprint and expiry. */
export async function localCa(api: HearthApi): Promise<{ pem: string; fingerprint_sha256: string; not_after: string }> {
  let pem: string
  try {
    pem = await api.hal.with<ProxyDriver, string>('proxy', (d) => d.localCa())
  } catch (err) {
    throw new HttpError('SERVICE_UNAVAILABLE', `Caddy's local CA cannot be read: ${(err as Error).message}`)
  }
  const cert = new X509Certificate(pem)
  return { pem, fingerprint_sha256: cert.fingerprint256, not_after: new Date(Date.parse(cert.validTo)).toISOString() }
}
