import { X509Certificate } from 'node:crypto'
import { type DriverContext, defineDriver } from '../../../core/plugin-api.js'
import type { ApplyResult, ProxyDriver, ProxyRoute } from '../driver.js'
import { admin, adminListen, CaddyUnreachable, parseAdmin, ProxyPortError } from './admin.js'
import { type CaddySettings, caddyConfig } from './config.js'
import { servedCertificate } from './served-cert.js'
import { listenTlsLog } from './tls-log.js'

/**
 * Caddy through its admin API: the driver owns Caddy's whole config and replaces it with POST /load.
 * When Caddy refuses a config, routes are loaded one by one to find the culprits, so one bad route
 * never takes the others down. Caddy runs as its own user and shares no folder with Hearth: what
 * Hearth learns comes from the admin API, the certificates Caddy serves, and Caddy's TLS log sent
 * to a loopback port of Hearth's.
 */
async function createCaddy(ctx: DriverContext): Promise<ProxyDriver> {
  const endpoint = parseAdmin(String(ctx.settings.admin))
  const tlsLog = await listenTlsLog()
  const settings: CaddySettings = {
    adminListen: adminListen(endpoint),
    httpPort: Number(ctx.settings.httpPort),
    httpsPort: Number(ctx.settings.httpsPort),
    acmeDirectory: String(ctx.settings.acmeDirectory),
    acmeEmail: String(ctx.settings.acmeEmail ?? ''),
    acmeCaRoot: String(ctx.settings.acmeCaRoot ?? ''),
    tlsLogAddress: tlsLog.address,
  }
  let pushed: string | null = null
  const localAuthority = async () => {
    const res = await admin(endpoint, 'GET', '/pki/ca/local')
    if (res.status !== 200) throw new CaddyUnreachable(`Caddy has no local CA yet (${res.status})`)
    return JSON.parse(res.text) as LocalAuthority
  }

  const load = async (routes: ProxyRoute[]) => {
    const { config, hash } = caddyConfig(routes, settings)
    const res = await admin(endpoint, 'POST', '/load', config)
    return { ok: res.status === 200, error: caddyError(res.text).slice(0, 500), hash }
  }

  return {
    async apply(routes) {
      const all = await load(routes)
      if (all.ok) {
        pushed = all.hash
        return { refused: [] }
      }
      // A port Caddy cannot listen on refuses every route alike: say so once instead of blaming each.
      const port = portProblem(all.error)
      if (port) throw new ProxyPortError(port)
      const good: ProxyRoute[] = []
      const refused: ApplyResult['refused'] = []
      for (const route of routes) {
        const attempt = await load([...good, route])
        if (attempt.ok) good.push(route)
        else refused.push({ id: route.id, error: attempt.error || 'Caddy refused the route' })
      }
      const final = await load(good)
      pushed = final.ok ? final.hash : null
      return { refused }
    },
    async inStep() {
      if (!pushed) return false
      return (await admin(endpoint, 'GET', `/id/hearth-config-${pushed}`, undefined, 1500)).status === 200
    },
    certificate: (domain) => servedCertificate(settings.httpsPort, domain),
    issuanceErrors: async () => tlsLog.errors(),
    localCa: async () => (await localAuthority()).root_certificate,
    async localRootServing(domain) {
      const [served, ca] = await Promise.all([servedCertificate(settings.httpsPort, domain), localAuthority()])
      return served && issuedBy(served, ca) ? ca.root_certificate : null
    },
    dispose: () => tlsLog.close(),
  }
}

/** What Caddy's GET /pki/ca/<id> answers (PEM). */
interface LocalAuthority {
  root_certificate: string
  intermediate_certificate: string
}

/** Whether `leaf` chains to the local CA: issued and signed by its intermediate, itself signed by its root. */
function issuedBy(leaf: string, ca: LocalAuthority): boolean {
  try {
    const [cert, intermediate, root] = [leaf, ca.intermediate_certificate, ca.root_certificate].map((pem) => new X509Certificate(pem)) as [
      X509Certificate,
      X509Certificate,
      X509Certificate,
    ]
    return (
      cert.checkIssued(intermediate) &&
      cert.verify(intermediate.publicKey) &&
      intermediate.checkIssued(root) &&
      intermediate.verify(root.publicKey)
    )
  } catch {
    return false
  }
}

/** Caddy's error answers are `{"error": "..."}`: the message alone, else the text as it came. */
function caddyError(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: unknown }
    if (typeof error === 'string') return error
  } catch {
    // not JSON: the text itself
  }
  return text.trim()
}

/** Caddy's listener errors, in words an appliance owner can act on. */
function portProblem(error: string): string | null {
  const m = /listen(?:ing)? (?:tcp|udp)\S* [^:]*:(\d{1,5}): bind: (address already in use|permission denied)/.exec(error)
  if (!m) return null
  return m[2] === 'address already in use'
    ? `port ${m[1]} is already in use by another program: stop it, or set HEARTH_PROXY_HTTP_PORT / HEARTH_PROXY_HTTPS_PORT`
    : `Caddy may not listen on port ${m[1]} (ports below 1024 need CAP_NET_BIND_SERVICE)`
}

export default defineDriver<ProxyDriver>({
  manifest: {
    name: 'caddy',
    kind: 'proxy',
    priority: 10,
    capabilities: ['canProxy', 'canTls'],
    description: 'Caddy through its admin API',
  },
  // Supported even while Caddy is down: routes are kept and pushed when it comes back (health says degraded).
  probe: async () => ({ supported: true }),
  create: (ctx) => createCaddy(ctx),
})
