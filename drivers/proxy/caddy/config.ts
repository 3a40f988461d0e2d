import { createHash } from 'node:crypto'
import type { ProxyRoute } from '../driver.js'

export interface CaddySettings {
  /** host:port of the admin API as Caddy must keep listening on it. */
  adminListen: string
  httpPort: number
  httpsPort: number
  acmeDirectory: string
  acmeEmail: string
  /** A PEM file of extra roots Caddy trusts when it talks to the ACME server (a test CA such as pebble's); Caddy reads it. */
  acmeCaRoot: string
  /** Where Caddy's TLS log goes (`udp/127.0.0.1:<port>`, Hearth's listener). */
  tlsLogAddress: string
}

/** LAN-only names get Caddy's local CA: no public ACME server can validate them. */
export const lanOnly = (domain: string) => !domain.includes('.') || /\.(lan|local|home\.arpa|internal|test)$/.test(domain)

function upstream(target: string) {
  const url = new URL(target)
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return {
    handler: 'reverse_proxy',
    // URL.hostname keeps an IPv6 address in brackets, which is how Caddy's dial address wants it.
    upstreams: [{ dial: `${url.hostname}:${port}` }],
    ...(url.protocol === 'https:' ? { transport: { protocol: 'http', tls: {} } } : {}),
  }
}

const route = (r: ProxyRoute) => ({
  '@id': `hearth-route-${r.id}`,
  match: [{ host: [r.domain] }],
  handle: [upstream(r.target)],
  terminal: true,
})

/** Unmatched hosts get a plain 404, not Caddy's empty 200. */
const notFound = { handle: [{ handler: 'static_response', status_code: 404, body: 'no such site on this Hearth' }] }

/**
 * Caddy's whole JSON config for these routes: plain HTTP routes on the HTTP port, HTTPS routes on the
 * HTTPS port with automatic certificates (ACME from the configured directory, the local CA for LAN
 * names). A marker route whose @id carries the config's hash lets Hearth ask Caddy, with one GET,
 * whether it still serves this config.
 */
export function caddyConfig(routes: ProxyRoute[], s: CaddySettings): { config: object; hash: string } {
  const plain = routes.filter((r) => !r.ssl)
  const secure = routes.filter((r) => r.ssl)
  const servers: Record<string, object> = {
    hearth_http: { listen: [`:${s.httpPort}`], automatic_https: { disable: true }, routes: [...plain.map(route), notFound] },
  }
  const own = secure.filter((r) => r.certificate)
  const managed = secure.filter((r) => !r.certificate)
  if (secure.length) {
    servers.hearth_https = {
      listen: [`:${s.httpsPort}`],
      routes: [...secure.map(route), notFound],
      // Names Hearth holds a certificate for (DNS-01) are served with it, not managed by Caddy.
      ...(own.length ? { automatic_https: { skip_certificates: own.map((r) => r.domain) } } : {}),
    }
  }
  const publicNames = managed.filter((r) => !lanOnly(r.domain)).map((r) => r.domain)
  const localNames = managed.filter((r) => lanOnly(r.domain)).map((r) => r.domain)
  const policies = [
    ...(publicNames.length
      ? [
          {
            subjects: publicNames,
            issuers: [
              {
                module: 'acme',
                ca: s.acmeDirectory,
                ...(s.acmeEmail ? { email: s.acmeEmail } : {}),
                ...(s.acmeCaRoot ? { trusted_roots_pem_files: [s.acmeCaRoot] } : {}),
              },
            ],
          },
        ]
      : []),
    ...(localNames.length ? [{ subjects: localNames, issuers: [{ module: 'internal' }] }] : []),
  ]
  const body = {
    // No `storage`: Caddy keeps certificates and its local CA in its own data folder, as its own user.
    admin: { listen: s.adminListen },
    // Caddy's admin API says nothing of failed issuances: its TLS loggers send them to Hearth's listener.
    logging: {
      logs: {
        hearth_tls: {
          writer: { output: 'net', address: s.tlsLogAddress },
          encoder: { format: 'json' },
          include: ['tls.obtain', 'tls.issuance.acme'],
        },
      },
    },
    apps: {
      http: { http_port: s.httpPort, https_port: s.httpsPort, servers },
      tls: {
        ...(policies.length ? { automation: { policies } } : {}),
        ...(own.length
          ? { certificates: { load_pem: own.map((r) => ({ certificate: r.certificate?.pem, key: r.certificate?.key, tags: ['hearth'] })) } }
          : {}),
      },
      // The local CA always runs (GET /pki/ca/local serves its root) and never touches the system's trust store.
      pki: { certificate_authorities: { local: { install_trust: false } } },
    },
  }
  const hash = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 16)
  const marker = {
    '@id': `hearth-config-${hash}`,
    match: [{ host: ['hearth-config.invalid'] }],
    handle: [{ handler: 'static_response', status_code: 204 }],
    terminal: true,
  }
  ;(servers.hearth_http as { routes: object[] }).routes.unshift(marker)
  return { config: body, hash }
}
