import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { type DriverContext, defineDriver } from '../../../core/plugin-api.js'
import type { ApplyResult, ProxyDriver, ProxyRoute } from '../driver.js'
import { admin, adminListen, CaddyUnreachable, parseAdmin, ProxyPortError } from './admin.js'
import { type CaddySettings, caddyConfig } from './config.js'

/**
 * Caddy through its admin API: the driver owns Caddy's whole config and replaces it with POST /load.
 * When Caddy refuses a config, routes are loaded one by one to find the culprits, so one bad route
 * never takes the others down.
 */
function createCaddy(ctx: DriverContext): ProxyDriver {
  const endpoint = parseAdmin(String(ctx.settings.admin))
  const settings: CaddySettings = {
    adminListen: adminListen(endpoint),
    httpPort: Number(ctx.settings.httpPort),
    httpsPort: Number(ctx.settings.httpsPort),
    acmeDirectory: String(ctx.settings.acmeDirectory),
    acmeEmail: String(ctx.settings.acmeEmail ?? ''),
    acmeCaRoot: String(ctx.settings.acmeCaRoot ?? ''),
    storageRoot: join(ctx.dataDir, 'caddy'),
  }
  let pushed: string | null = null

  const load = async (routes: ProxyRoute[]) => {
    const { config, hash } = caddyConfig(routes, settings)
    const res = await admin(endpoint, 'POST', '/load', config)
    return { ok: res.status === 200, error: res.text.trim().slice(0, 500), hash }
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
      return (await admin(endpoint, 'GET', `/id/hearth-config-${pushed}`, undefined, 3000)).status === 200
    },
    async certificate(domain) {
      // <storage>/certificates/<issuer>/<domain>/<domain>.crt: the newest of the issuers that hold one.
      const root = join(settings.storageRoot, 'certificates')
      const found = (existsSync(root) ? readdirSync(root) : [])
        .map((issuer) => join(root, issuer, domain, `${domain}.crt`))
        .filter((file) => existsSync(file))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
      return found[0] ? readFileSync(found[0], 'utf8') : null
    },
    async issuanceErrors() {
      return issuanceErrors(join(settings.storageRoot, 'tls.log'))
    },
    async localCa() {
      const res = await admin(endpoint, 'GET', '/pki/ca/local')
      if (res.status !== 200) throw new CaddyUnreachable(`Caddy has no local CA yet (${res.status})`)
      return (JSON.parse(res.text) as { root_certificate: string }).root_certificate
    },
  }
}

/**
 * The latest failure per domain from the tail of Caddy's TLS log (JSON lines: `identifier`, `error`),
 * dropped once a later line says that domain's certificate was obtained. At most 256 KiB is read.
 */
function issuanceErrors(file: string): Map<string, string> {
  const errors = new Map<string, string>()
  if (!existsSync(file)) return errors
  const size = statSync(file).size
  const fd = openSync(file, 'r')
  const buffer = Buffer.alloc(Math.min(size, 256 * 1024))
  try {
    readSync(fd, buffer, 0, buffer.length, size - buffer.length)
  } finally {
    closeSync(fd)
  }
  for (const line of buffer.toString('utf8').split('\n')) {
    let entry: { identifier?: string; error?: string; msg?: string }
    try {
      entry = JSON.parse(line)
    } catch {
      continue
    }
    if (!entry.identifier) continue
    if (entry.msg === 'certificate obtained successfully') errors.delete(entry.identifier)
    else if (entry.error && entry.msg === 'could not get certificate from issuer') errors.set(entry.identifier, entry.error.slice(0, 500))
  }
  return errors
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
  create: async (ctx) => createCaddy(ctx),
})
