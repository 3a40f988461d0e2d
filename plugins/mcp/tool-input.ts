import type { RouteEntry } from '../../core/plugin-api.js'

/**
 * The one place a tool's input is derived from a REST route's own schemas:
 * path parameters, query parameters and body properties become the tool's
 * arguments (one flat object, as MCP clients show them), and a call's
 * arguments are split back into the path, query string and body the route
 * expects. Nothing is restated: a field added to a route appears in its tool.
 */
export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[] }

export interface InputShape {
  /** Where each argument goes. */
  params: string[]
  query: string[]
  /** Request headers the route declares (If-Match...), as arguments named in snake case (`if_match`). */
  headers: string[]
  /** Body properties (flattened), or the one argument carrying the whole body (`bodyAs`). */
  body: string[]
  bodyAs?: string
}

export interface DerivedInput {
  schema: JsonSchema
  shape: InputShape
}

export interface DeriveOptions {
  /** Query parameters the tool does not offer (it sets them itself, e.g. `format`). */
  omitQuery?: readonly string[]
  /** Only these query parameters (after omitQuery). */
  pickQuery?: readonly string[]
  /** A free-form body (a map of custom fields) goes whole under this argument instead of being flattened. */
  bodyAs?: string
  /** Arguments of the tool's own (e.g. `format`), added last. */
  extra?: Record<string, JsonSchema>
}

/** A TypeBox schema as plain JSON Schema (TypeBox's symbol keys dropped, a private copy). */
export const plain = (schema: unknown): JsonSchema => JSON.parse(JSON.stringify(schema ?? {})) as JsonSchema

export function deriveInput(route: RouteEntry, opts: DeriveOptions = {}): DerivedInput {
  const properties: Record<string, JsonSchema> = {}
  const required: string[] = []
  const shape: InputShape = { params: [], query: [], headers: [], body: [] }
  const add = (name: string, schema: JsonSchema, isRequired: boolean, part: 'params' | 'query' | 'headers' | 'body') => {
    if (name in properties) throw new Error(`${route.operationId}: argument ${name} would come from two places`)
    properties[name] = schema
    if (isRequired) required.push(name)
    shape[part].push(name)
  }
  const params = plain(route.schema.params)
  for (const [name, s] of Object.entries(params.properties ?? {})) add(name, s, true, 'params')
  const query = plain(route.schema.querystring)
  for (const [name, s] of Object.entries(query.properties ?? {})) {
    if (opts.omitQuery?.includes(name) || (opts.pickQuery && !opts.pickQuery.includes(name))) continue
    add(name, s, (query.required ?? []).includes(name) && s.default === undefined, 'query')
  }
  const headers = plain(route.schema.headers)
  for (const [name, s] of Object.entries(headers.properties ?? {})) {
    // Credentials and the acting user are the MCP caller's own, forwarded as they came.
    if (name === 'authorization' || name.startsWith('x-svc-')) continue
    add(argumentOf(name), s, (headers.required ?? []).includes(name), 'headers')
  }
  if (route.schema.body) {
    const body = plain(route.schema.body)
    if (opts.bodyAs) {
      add(opts.bodyAs, body, true, 'body')
      shape.bodyAs = opts.bodyAs
    } else {
      for (const [name, s] of Object.entries(body.properties ?? {})) add(name, s, (body.required ?? []).includes(name), 'body')
    }
  }
  for (const [name, s] of Object.entries(opts.extra ?? {})) {
    if (name in properties) throw new Error(`${route.operationId}: argument ${name} would come from two places`)
    properties[name] = s
  }
  const schema: JsonSchema = { type: 'object', properties, additionalProperties: false }
  if (required.length) schema.required = required
  return { schema, shape }
}

/** A header's argument name: `if-match` → `if_match`. */
const argumentOf = (header: string) => header.toLowerCase().replace(/-/g, '_')

/** Arguments that are not in the shape (the route would never see them): the first one, or null. */
export function unknownArgument(shape: InputShape, args: Record<string, unknown>, own: readonly string[] = []): string | null {
  const known = new Set([...shape.params, ...shape.query, ...shape.headers, ...shape.body, ...own])
  return Object.keys(args).find((k) => !known.has(k)) ?? null
}

export interface RestRequest {
  method: string
  /** Path with parameters filled in and the query string appended. */
  url: string
  headers: Record<string, string>
  body?: unknown
}

/** The REST request a call's arguments stand for. */
export function toRequest(
  route: RouteEntry,
  shape: InputShape,
  args: Record<string, unknown>,
  fixed: Record<string, string> = {},
): RestRequest {
  let path = route.url
  for (const name of shape.params) path = path.replace(`:${name}`, encodeURIComponent(String(args[name] ?? '')))
  const search = new URLSearchParams()
  for (const name of shape.query) {
    const value = args[name]
    if (value === undefined || value === null) continue
    for (const v of Array.isArray(value) ? value : [value]) search.append(name, typeof v === 'object' ? JSON.stringify(v) : String(v))
  }
  for (const [name, value] of Object.entries(fixed)) search.set(name, value)
  const qs = search.toString()
  const headers: Record<string, string> = {}
  for (const name of shape.headers) {
    if (args[name] !== undefined && args[name] !== null) headers[name.replace(/_/g, '-')] = String(args[name])
  }
  const request: RestRequest = { method: route.method, url: qs ? `${path}?${qs}` : path, headers }
  if (shape.bodyAs) request.body = args[shape.bodyAs]
  else if (route.schema.body) request.body = Object.fromEntries(shape.body.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]))
  return request
}
