import type { TSchema } from '@sinclair/typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { KEY_REACH } from './auth/access.js'
import type { KeyScope, RouteGuards, RouteScope } from './auth/context.js'
import { createGuard, type GuardDeps } from './auth/guards.js'
import { ANSWER_BUDGET, streamLargePage } from './list-page.js'
import { errorEntry } from './errors.js'
import { operationIdOf } from './operation-id.js'
import { withHook } from './route-hooks.js'
import { envelopeOf, ListOf, type Page, Single, type Tier } from './schemas.js'

/**
 * The one route pipeline, installed per plugin by the loader (the core's own
 * routes are plugins too): manifest defaults → guard → envelope → contract.
 * Each route's final config is settled here, once, before the guard is built
 * from it; the OpenAPI document reads what this step derived.
 */
export interface PipelineContext {
  /** The plugin's name: the default tag of its routes. */
  plugin: string
  /** The manifest's route defaults; a route's own config wins. */
  defaults: Pick<RouteGuards, 'scope' | 'requires' | 'tier'>
  guard: GuardDeps
  /** The tier a list reports to a caller without a session (public routes). */
  defaultTier: () => Tier
  /** operationId → "METHOD url" across the whole app: a second route deriving the same id is refused. */
  operationIds: Map<string, string>
  /** operationId → the route as declared, for plugins that serve routes another way (api.routes). */
  routes?: Map<string, RouteEntry>
}

/** One documented route as its plugin declared it: what `api.routes.get(operationId)` answers. */
export interface RouteEntry {
  operationId: string
  method: string
  /** The full path with Fastify's parameters, e.g. `/api/v1/notes/:id`. */
  url: string
  /** The schemas as declared (TypeBox, JSON Schema): 2xx responses without their envelope. */
  schema: Readonly<RouteSchema>
  config: Readonly<RouteGuards>
}

type Mode = 'single' | 'list' | 'none'
export type RouteSchema = {
  response?: Record<string, TSchema>
  operationId?: string
  summary?: string
  description?: string
  tags?: string[]
  security?: Array<Record<string, string[]>>
  body?: unknown
  querystring?: unknown
  params?: unknown
  headers?: unknown
  hide?: boolean
  [extension: `x-${string}`]: unknown
}

export function installRoutePipeline(instance: FastifyInstance, ctx: PipelineContext): void {
  instance.addHook('onRoute', (route) => prepareRoute(route, ctx))
}

export function prepareRoute(route: RouteOptions, ctx: PipelineContext): void {
  const config: RouteGuards = { ...definedOnly(ctx.defaults), ...route.config }
  // A new object: the options as given stay as they were (a route declaring several methods shares them).
  route.config = config
  for (const code of config.errors ?? []) {
    if (!errorEntry(code))
      throw new Error(`${route.method} ${route.url}: error code ${code} is not in the catalogue (api.errors.define it first)`)
  }
  if (config.auth !== false) route.onRequest = withHook(route.onRequest, createGuard(ctx.guard, config), 'first')
  if (config.secret) route.onSend = withHook(route.onSend, noStore, 'first')
  const mode = envelopeMode(route, config)
  route.schema = contract(route, config, mode, ctx)
  if (mode !== 'none') route.handler = enveloped(route.handler, mode, ctx)
}

/** Answers that carry a secret are kept by no cache (errors too: they are no cheaper to keep). */
const noStore = async (_req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
  reply.header('cache-control', 'no-store')
  return payload
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>
}

const success = (schema: RouteSchema | undefined) => Object.entries(schema?.response ?? {}).filter(([status]) => status.startsWith('2'))

function envelopeMode(route: RouteOptions, config: RouteGuards): Mode {
  if (config.envelope) return config.envelope
  const declared = success(route.schema as RouteSchema | undefined)[0]?.[1]
  return envelopeOf(declared)?.mode ?? 'single'
}

/**
 * The route's schema as the wire and the document see it: 2xx schemas in
 * their enveloped form (one declared without Single/ListOf is wrapped, as
 * plugin API 1.0 promised), and the operation's id, tags, security and access notes.
 */
function contract(route: RouteOptions, config: RouteGuards, mode: Mode, ctx: PipelineContext): RouteSchema {
  const given = (route.schema ?? {}) as RouteSchema
  const schema: RouteSchema = { ...given }
  const response =
    given.response &&
    Object.fromEntries(
      Object.entries(given.response).map(([status, declared]) => [status, status.startsWith('2') ? wire(declared, mode) : declared]),
    )
  if (response) schema.response = response
  if (given.hide) return schema
  const method = String(route.method)
  schema.operationId ??= operationIdOf(method, route.url, {
    list: mode === 'list',
    creates: response !== undefined && '201' in response,
  })
  if (method !== 'HEAD') {
    const holder = ctx.operationIds.get(schema.operationId)
    const here = `${method} ${route.url}`
    if (holder && holder !== here) throw new Error(`operationId ${schema.operationId} of ${here} is already used by ${holder}`)
    ctx.operationIds.set(schema.operationId, here)
    ctx.routes?.set(schema.operationId, { operationId: schema.operationId, method, url: route.url, schema: given, config })
  }
  schema.tags ??= [ctx.plugin]
  schema.security = config.auth === false ? [] : [{ userToken: [] }, { apiKey: [] }, { systemToken: [] }]
  schema.description = [given.description, ...accessNotes(config)].filter(Boolean).join('\n\n')
  if (config.auth !== false) schema['x-hearth-scope'] = config.scope ?? 'general'
  if (config.role) schema['x-hearth-role'] = config.role
  if (config.tier === 'pro') schema['x-hearth-tier'] = 'pro'
  if (config.requires?.length) schema['x-hearth-requires'] = config.requires
  return schema
}

function wire(declared: TSchema, mode: Mode): TSchema {
  if (mode === 'none' || envelopeOf(declared)) return declared
  if (mode === 'list') return ListOf((declared.properties?.items?.items as TSchema | undefined) ?? declared)
  return Single(declared)
}

/** Which API keys reach a route of a scope, in words, from the table the guard reads. */
const KEY_SCOPES: KeyScope[] = ['agent', 'sync', 'system', 'dav']

export function keyAccessNote(scope: RouteScope): string {
  const reach = KEY_REACH[scope]
  const all = KEY_SCOPES.filter((k) => reach[k] === 'all')
  const reads = KEY_SCOPES.filter((k) => reach[k] === 'read')
  const list = (scopes: string[]) => scopes.map((k) => `\`${k}\``).join(', ')
  return `API keys of scope ${list(all)}${reads.length ? `; ${list(reads)} for reads (GET) only` : ''}${scope === 'admin' ? ', acting for an admin' : ''}; any other key → 403 INSUFFICIENT_SCOPE.`
}

/** What a caller needs, in words, from the same config the guard enforces. */
export function accessNotes(config: RouteGuards): string[] {
  if (config.auth === false) return ['**Public**: no token needed.']
  const notes = [`**Access**: a user's access token, the system token, or an API key. ${keyAccessNote(config.scope ?? 'general')}`]
  if (config.role) notes.push(`**Role**: ${config.role === 'owner' ? 'owner' : 'admin or owner'} (403 FORBIDDEN otherwise).`)
  if (config.tier === 'pro') notes.push('**Pro tier**: free users get 403 FEATURE_NOT_AVAILABLE.')
  if (config.requires?.length) {
    notes.push(
      `**Hardware**: needs ${config.requires.join(', ')} of the active driver (503 without a driver of that kind, 422 when the driver lacks it).`,
    )
  }
  return notes
}

/** Every error code the route can answer, from its guards, its schemas and what it declares (`config.errors`). */
export function routeErrors(config: RouteGuards, schema: RouteSchema | undefined): string[] {
  const codes = new Set<string>()
  if (config.auth !== false) {
    codes.add('UNAUTHORIZED').add('RATE_LIMITED')
    if (config.userContext !== false) codes.add('USER_CONTEXT_REQUIRED')
    // Some key scope never reaches any route (a `dav` key reaches none), and a key naming a user it may
    // not act for is refused on every route.
    codes.add('INSUFFICIENT_SCOPE').add('FORBIDDEN')
    if (config.tier === 'pro') codes.add('FEATURE_NOT_AVAILABLE')
    if (config.requires?.length) codes.add('SERVICE_UNAVAILABLE').add('UNPROCESSABLE')
  }
  if (schema?.body) codes.add('VALIDATION_ERROR').add('UNSUPPORTED_MEDIA_TYPE').add('PAYLOAD_TOO_LARGE')
  if (schema?.params) codes.add('VALIDATION_ERROR').add('NOT_FOUND')
  if (schema?.querystring) codes.add('INVALID_QUERY')
  for (const code of config.errors ?? []) codes.add(code)
  codes.add('INTERNAL_ERROR')
  return [...codes]
}

/**
 * Lets a route return its record (or `{ items, total }`) while the wire carries the envelope. A handler
 * that answers synchronously gets its envelope synchronously: no promise per request on hot reads.
 */
function enveloped(
  handler: RouteOptions['handler'],
  mode: 'single' | 'list',
  ctx: Pick<PipelineContext, 'defaultTier'>,
): RouteOptions['handler'] {
  const wrap = (request: FastifyRequest, reply: FastifyReply, result: unknown) => {
    if (result === reply || reply.sent) return reply
    if (result === undefined) return reply.code(204).send()
    if (mode === 'single') return { data: result }
    const page = result as Page<unknown>
    const q = (request.query ?? {}) as { limit?: number; offset?: number }
    const envelope = {
      data: page.items,
      meta: { total: page.total, limit: q.limit ?? page.items.length, offset: q.offset ?? 0 },
      tier: request.auth?.tier ?? ctx.defaultTier(),
      // The serializer writes the page within this many bytes (core/list-page.ts).
      [ANSWER_BUDGET]: request.answerBudget,
    }
    // A large page goes out as a stream, written while the event loop serves others between its pieces.
    return streamLargePage(reply, envelope) ?? envelope
  }
  return function envelope(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    const result: unknown = handler.call(this, request, reply)
    if (isThenable(result)) return result.then((value) => wrap(request, reply, value))
    const answer = wrap(request, reply, result)
    // Fastify sends what a synchronous handler returns: never the reply already sent.
    return answer === reply ? undefined : answer
  } as RouteOptions['handler']
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
