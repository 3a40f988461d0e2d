import { readFileSync } from 'node:fs'
import t from 'tap'
import { KEY_REACH, type Reach, rank, ROLES } from '../../core/auth/access.js'
import type { KeyScope, RouteScope } from '../../core/auth/context.js'
import type { Role } from '../../core/schemas.js'
import { addUser, apiKey, auth, build, owner } from '../helper.js'

/**
 * Every role × every credential × every route of the OpenAPI document: the answer is the route's
 * own (the guard let it through) or the refusal the table in core/auth/access.ts gives, with a code
 * the document lists for that route; never a 500. docs/security.md prints the same table.
 */

interface Operation {
  security?: unknown[]
  responses: Record<string, { description: string }>
  'x-hearth-scope'?: RouteScope
  'x-hearth-role'?: 'admin' | 'owner'
}
interface Route {
  method: string
  path: string
  op: Operation
}

const KEY_SCOPES: KeyScope[] = ['agent', 'sync', 'system', 'dav']
const REFUSALS = new Set(['UNAUTHORIZED', 'FORBIDDEN', 'INSUFFICIENT_SCOPE', 'USER_CONTEXT_REQUIRED'])
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
const READS = new Set(['GET', 'HEAD'])
const LOCAL = 'http://127.0.0.1:1'
const noTools = async (cmd: string) => ({ code: 127, stdout: '', stderr: `${cmd}: not here` })

/** The codes the document lists for a route at a status. */
const documented = (op: Operation, status: number): string[] =>
  [...(op.responses[String(status)]?.description ?? '').matchAll(/`([A-Z_]+)`/g)].map((m) => m[1] as string)

/** The key-scope table as docs/security.md prints it: one row per route scope, one column per key scope. */
function docsTable(): Record<string, Record<string, string>> {
  const doc = readFileSync(new URL('../../../docs/security.md', import.meta.url), 'utf8')
  const start = doc.indexOf('| route scope |')
  if (start < 0) throw new Error('docs/security.md has no "| route scope |" table')
  const lines = doc.slice(start).split('\n')
  const header = (lines[0] as string).split('|').map((c) => c.trim().replace(/`/g, ''))
  const table: Record<string, Record<string, string>> = {}
  for (const line of lines.slice(2)) {
    if (!line.startsWith('|')) break
    const cells = line.split('|').map((c) => c.trim().replace(/`/g, ''))
    const row: Record<string, string> = {}
    header.forEach((name, i) => name && (row[name] = cells[i] as string))
    table[row['route scope'] as string] = row
  }
  return table
}

const WORDS: Record<Reach, string> = { all: 'yes', read: 'reads', none: 'no' }

t.test('docs/security.md prints the table the guard reads', async (t) => {
  const table = docsTable()
  t.same(Object.keys(table).sort(), Object.keys(KEY_REACH).sort(), 'one row per route scope')
  for (const [routeScope, reach] of Object.entries(KEY_REACH)) {
    for (const key of KEY_SCOPES) t.equal(table[routeScope]?.[key], WORDS[reach[key]], `${routeScope} × ${key}`)
    t.equal(table[routeScope]?.session, 'yes', `${routeScope} × session`)
  }
})

/** A credential: who holds it, what it is, and whom it names in X-Svc-User-Id. */
interface Credential {
  name: string
  holder: Role
  kind: 'session' | KeyScope | 'system token'
  names?: Role | 'other member'
  headers: Record<string, string>
}

/** What the table says a credential gets on a route: null (the route answers) or the refusal. */
function expected(c: Credential, route: Route): { status: number; code: string } | null {
  if (!route.op.security?.length) return null
  if (c.kind === 'system token') return null
  const target = c.names === 'other member' ? 'user' : c.names
  if (c.kind === 'sync' || c.kind === 'system') {
    // Whom the key acts for, decided before any route is looked at.
    if (c.names && (c.names === 'other member' || c.names !== c.holder) && c.holder === 'user') return { status: 403, code: 'FORBIDDEN' }
    if (target && rank(target) > rank(c.holder)) return { status: 403, code: 'FORBIDDEN' }
  }
  if (c.kind !== 'session') {
    const reach = KEY_REACH[route.op['x-hearth-scope'] ?? 'general'][c.kind]
    if (reach === 'none' || (reach === 'read' && !READS.has(route.method))) return { status: 403, code: 'INSUFFICIENT_SCOPE' }
  }
  // In multi-user mode an admin's or owner's system or sync key names whom it acts for; a plain user's acts for its holder.
  const acting = c.kind === 'sync' || c.kind === 'system' ? (target ?? (c.holder === 'user' ? c.holder : null)) : c.holder
  if (!acting) return documented(route.op, 400).includes('USER_CONTEXT_REQUIRED') ? { status: 400, code: 'USER_CONTEXT_REQUIRED' } : null
  const needed = route.op['x-hearth-role']
  if (needed && rank(acting) < rank(needed)) return { status: 403, code: 'FORBIDDEN' }
  return null
}

t.test('every role × credential × route: the table’s answer, never a 500', async (t) => {
  const app = await build(t, {
    env: {
      HEARTH_TIER: 'pro',
      // Everything a route might call points at a closed local port; OS tools are absent.
      HEARTH_PUBLIC_IP_SOURCES: `${LOCAL}/a,${LOCAL}/b`,
      HEARTH_CONNECTIVITY_TARGETS: `${LOCAL}/`,
      HEARTH_DNS_RESOLVERS: '127.0.0.1:1',
      HEARTH_PORT53_CHECKER_URL: LOCAL,
      HEARTH_SERVICE_SUBDOMAIN_URL: LOCAL,
      HEARTH_ACME_DIRECTORY: LOCAL,
      HEARTH_AI_OPENAI_URL: LOCAL,
      HEARTH_AI_COMPATIBLE_URL: LOCAL,
      HEARTH_AI_OLLAMA_URL: LOCAL,
      HEARTH_CLOUDFLARE_API_URL: LOCAL,
      HEARTH_PORKBUN_API_URL: LOCAL,
      HEARTH_NAMECHEAP_API_URL: LOCAL,
      HEARTH_DIGITALOCEAN_API_URL: LOCAL,
      HEARTH_MAILER_URL: LOCAL,
      HEARTH_RATE_LIMIT: '100000',
    },
    run: noTools,
  })
  const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
    paths: Record<string, Record<string, Operation>>
  }
  const routes: Route[] = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  )

  const o = await owner(app)
  const a = await addUser(app, o.token, { role: 'admin' })
  const u = await addUser(app, o.token)
  const other = await addUser(app, o.token)
  const people: Record<Role, typeof o> = { owner: o, admin: a, user: u }
  const ids: Record<Role | 'other member', string> = { owner: o.userId, admin: a.userId, user: u.userId, 'other member': other.userId }

  const credentials: Credential[] = []
  for (const holder of ROLES) {
    const person = people[holder]
    credentials.push({ name: `${holder} session`, holder, kind: 'session', headers: auth(person.token) })
    for (const scope of KEY_SCOPES) {
      // Made by the owner, so each key's ceiling is its holder's role.
      const key = await apiKey(app, o.token, { scope, user_id: person.userId })
      const named: Array<Role | 'other member' | undefined> =
        scope === 'sync' || scope === 'system' ? [undefined, ...ROLES, 'other member'] : [undefined]
      for (const names of named)
        credentials.push({
          name: `${holder}'s ${scope} key${names ? ` naming ${names}` : ''}`,
          holder,
          kind: scope,
          ...(names ? { names } : {}),
          headers: auth(key, names ? { 'x-svc-user-id': ids[names] } : {}),
        })
    }
    credentials.push({
      name: `system token naming ${holder}`,
      holder,
      kind: 'system token',
      headers: auth(app.systemToken, { 'x-svc-user-id': person.userId }),
    })
  }

  let injects = 0
  // Off-table answers grouped by route and answer, with the credentials that got them.
  const failures = new Map<string, string[]>()
  const fail = (what: string, who: string) => failures.set(what, [...(failures.get(what) ?? []), who])
  for (const route of routes) {
    const url = route.path.replace(/\{[^}]+\}/g, UNKNOWN_ID)
    // A body of a type no route takes: a route the guard admits answers 415 before its handler runs.
    const body = READS.has(route.method) ? {} : { payload: 'probe', headers: { 'content-type': 'application/x-hearth-probe' } }
    for (const c of credentials) {
      const res = await app.inject({ method: route.method as 'GET', url, ...body, headers: { ...c.headers, ...body.headers } })
      injects++
      const code = (String(res.headers['content-type'] ?? '').includes('json') ? res.json()?.error?.code : undefined) as string | undefined
      const want = expected(c, route)
      const where = `${route.method} ${route.path}: ${res.statusCode} ${code ?? ''}`
      if (res.statusCode >= 500 && (res.statusCode === 500 || !documented(route.op, res.statusCode).includes(code as string)))
        fail(`${where}, an undocumented ${res.statusCode}`, c.name)
      else if (want && (res.statusCode !== want.status || code !== want.code)) fail(`${where}, wanted ${want.status} ${want.code}`, c.name)
      else if (want && !documented(route.op, want.status).includes(want.code)) fail(`${where}, ${want.code} not documented`, c.name)
      else if (!want && code && REFUSALS.has(code)) fail(`${where}, refused where the table allows`, c.name)
    }
  }
  const report = [...failures].map(([what, who]) => `${what} (${who.length}: ${who.slice(0, 3).join('; ')}${who.length > 3 ? '...' : ''})`)
  t.ok(routes.length >= 100, `${routes.length} routes`)
  t.equal(
    credentials.length,
    3 * 14,
    '3 roles × (session, agent key, dav key, sync and system keys naming nobody, each role or another member, the system token)',
  )
  t.same(report, [], `${injects} requests, ${report.length} kinds of answer off the table`)
})
