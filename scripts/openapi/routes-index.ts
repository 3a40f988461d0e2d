/**
 * docs/api.md against the OpenAPI document: the routes the prose names (`POST /notes`, with `:id`
 * parameters and `{a,b}` alternatives) and the routes the document has. `node
 * dist/scripts/openapi/routes-index.js` prints the "Every route" index docs/api.md carries, from
 * the document; a test fails when either side names a route the other lacks.
 */
import { openApiDocument } from './document.js'

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
/** The JSON API's prefix; docs/api.md writes most routes without it. */
const PREFIX = '/api/v1'
/** Served outside the OpenAPI document, described in words: Prometheus, DAV and its discovery, the WebSocket, the document. */
const OUTSIDE = [
  /^\/metrics$/,
  /^\/dav(\/|$)/,
  /^\/\.well-known\//,
  /^\/api\/v1\/ws$/,
  /^\/api\/v1\/openapi\.json$/,
  /^\/api\/v1\/docs(\/|$)/,
]
/** Words in docs/api.md that look like a route and are a part of one (PATCH /notes/:id/custom and its kin). */
const FRAGMENTS = new Set(['PATCH /custom'])

/** `{a,b}/x` → `a/x`, `b/x` (one level, as the prose writes them). */
function expand(path: string): string[] {
  const m = /\{([^{}]*,[^{}]*)\}/.exec(path)
  if (!m) return [path]
  return m[1]!.split(',').flatMap((alt) => expand(path.slice(0, m.index) + alt + path.slice(m.index + m[0].length)))
}

/** `GET /notes/:id` → `GET /api/v1/notes/{id}`, the document's spelling. */
export function canonical(route: string): string {
  const [method, path] = route.split(' ') as [string, string]
  const full = path.startsWith(`${PREFIX}/`) || path === PREFIX ? path : `${PREFIX}${path === '/' ? '' : path}`
  return `${method} ${full.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')}`
}

/** Every route docs/api.md names, canonical, except what is served outside the document. */
export function routesInProse(markdown: string): Set<string> {
  const out = new Set<string>()
  for (const m of markdown.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[A-Za-z0-9_/:{},.-]*)/g)) {
    const path = (m[2] as string).replace(/[.,]+$/, '')
    if (FRAGMENTS.has(`${m[1]} ${path}`)) continue
    for (const one of expand(path)) {
      if (OUTSIDE.some((re) => re.test(one))) continue
      out.add(canonical(`${m[1]} ${one}`))
    }
  }
  return out
}

interface Operation {
  route: string
  summary: string
  tag: string
}

/** Every operation of the document, canonical, with its summary and first tag. */
export function documentOperations(doc: { paths?: Record<string, Record<string, { summary?: string; tags?: string[] }>> }): Operation[] {
  const out: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths ?? {}))
    for (const method of METHODS) {
      const op = item[method]
      if (op) out.push({ route: `${method.toUpperCase()} ${path}`, summary: op.summary ?? '', tag: op.tags?.[0] ?? 'other' })
    }
  return out
}

/** How a route is written in the index: without the prefix, parameters as `:name`. */
export const written = (route: string): string =>
  route
    .replace(` ${PREFIX}`, ' ')
    .replace(/ $/, ' /')
    .replace(/\{([^}]+)\}/g, ':$1')

/** The "Every route" index: one line per operation, by tag. */
export function routesIndex(ops: Operation[]): string {
  const tags = [...new Set(ops.map((o) => o.tag))].sort()
  return tags
    .map((tag) => {
      const lines = ops
        .filter((o) => o.tag === tag)
        .map((o) => `- \`${written(o.route)}\`: ${o.summary}`)
        .sort()
      return `**${tag}**\n\n${lines.join('\n')}`
    })
    .join('\n\n')
}

if (import.meta.url === `file://${process.argv[1]}`)
  process.stdout.write(`${routesIndex(documentOperations((await openApiDocument()) as never))}\n`)
