import type { FastifyRequest } from 'fastify'
import type { PluginInstance } from '../../core/plugin-api.js'
import { type InputShape, toRequest, unknownArgument, type RestRequest } from './tool-input.js'
import { pacedSteps } from '../../lib/paced-stream.js'
import { fitResultSteps, listBudget, markNext } from './result-size.js'
import type { BoundTool, ListTool, Resource, RouteTool } from './tools.js'

/**
 * Runs a tool as the REST request it stands for, through `app.inject` with
 * the caller's own credentials: the route's guard (token, scope, rate limit),
 * validation, service and events are the REST API's, untouched. The REST
 * answer becomes the tool result: `structuredContent` always an object (the
 * record, `{ items, total, limit, offset }`, or `{ error }`), the same JSON as
 * text for clients that read only `content`, `isError` with the API's error code.
 */
export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>
  structuredContent: Record<string, unknown>
  isError?: boolean
  [key: string]: unknown
}

export interface CallContext {
  app: PluginInstance
  request: FastifyRequest
  /** The records plugin's compact projection of one record. */
  compact(resource: Resource, record: Record<string, unknown>): Record<string, unknown>
}

interface ApiError {
  code: string
  message: string
  details?: Record<string, unknown>
}

class ToolFailure extends Error {
  constructor(readonly error: ApiError) {
    super(error.message)
  }
}

const FORWARDED = ['authorization', 'x-svc-user-id', 'x-svc-source'] as const

/** `budget`: the bytes the REST answer may take (a list page is cut to it by the core). */
async function rest(ctx: CallContext, req: RestRequest, n: number, budget?: number): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { ...req.headers, 'x-request-id': `${ctx.request.id}.${n}`.slice(0, 128) }
  if (budget !== undefined) headers['x-answer-budget'] = String(budget)
  for (const name of FORWARDED) {
    const value = ctx.request.headers[name]
    if (typeof value === 'string') headers[name] = value
  }
  if (req.body !== undefined) headers['content-type'] = 'application/json'
  const res = await ctx.app.inject({
    method: req.method as 'GET',
    url: req.url,
    headers,
    ...(req.body !== undefined ? { payload: JSON.stringify(req.body) } : {}),
  })
  const body = (res.body ? JSON.parse(res.body) : {}) as { data?: unknown; meta?: Record<string, number>; error?: ApiError }
  if (res.statusCode >= 400) {
    const error = body.error ?? { code: 'INTERNAL_ERROR', message: `HTTP ${res.statusCode}` }
    const retry = res.headers['retry-after']
    throw new ToolFailure(retry ? { ...error, details: { ...error.details, retry_after_s: Number(retry) } } : error)
  }
  if (Array.isArray(body.data)) return { items: body.data, ...body.meta }
  return (body.data as Record<string, unknown> | undefined) ?? { ok: true }
}

const invalid = (field: string, constraint: string, message: string) =>
  new ToolFailure({ code: 'VALIDATION_ERROR', message, details: { field, constraint } })

function checkArgs(shape: InputShape, args: Record<string, unknown>, own: readonly string[], prefix = ''): void {
  const unknown = unknownArgument(shape, args, own)
  if (unknown) throw invalid(`${prefix}${unknown}`, 'unknown', `Unknown argument ${prefix}${unknown}`)
  for (const name of shape.params) {
    if (typeof args[name] !== 'string' || !args[name])
      throw invalid(name, args[name] === undefined ? 'required' : 'type', `${name} must be a string`)
  }
}

function formatOf(args: Record<string, unknown>): 'compact' | 'full' {
  const format = args.format ?? 'compact'
  if (format !== 'compact' && format !== 'full') throw invalid('format', 'enum', 'format must be compact or full')
  return format
}

const objectOf = (value: unknown, field: string): Record<string, unknown> => {
  if (value === undefined) return {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(field, 'type', `${field} must be an object`)
  return value as Record<string, unknown>
}

async function runRoute(ctx: CallContext, bound: RouteTool, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  checkArgs(bound.shape, args, ['format'])
  const full = formatOf(args) === 'full'
  const { format: _format, ...rest_ } = args
  const record = await rest(ctx, toRequest(bound.route, bound.shape, rest_), 1)
  // A permanent delete answers { id } only: nothing to shorten.
  if (full || Object.keys(record).length <= 1) return record
  const short = ctx.compact(bound.resource, record)
  // The state a write tool changes stays visible in the short form.
  if (record.archived === true) short.archived = true
  if (record.deleted_at) short.deleted_at = record.deleted_at
  return short
}

async function runSearch(ctx: CallContext, bound: ListTool, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const resources = Object.keys(bound.routes) as Resource[]
  const own = ['query', 'types', 'limit', 'offset', 'format', ...resources]
  const extra = Object.keys(args).find((k) => !own.includes(k))
  if (extra) throw invalid(extra, 'unknown', `Unknown argument ${extra}`)
  const fixed: Record<string, string> = formatOf(args) === 'full' ? {} : { format: 'compact' }
  const types = args.types === undefined ? resources : args.types
  if (!Array.isArray(types) || types.length === 0 || types.some((t) => !resources.includes(t as Resource))) {
    throw invalid('types', 'enum', `types must list some of ${resources.join(', ')}`)
  }
  const out: Record<string, unknown> = {}
  let n = 0
  const searched = resources.filter((r) => types.includes(r))
  for (const resource of searched) {
    // One REST request per type; other work (DNS, /health) runs between them.
    if (n > 0) await nextTurn()
    const { route, shape } = bound.routes[resource] as { route: RouteTool['route']; shape: InputShape }
    const filters = objectOf(args[resource], resource)
    checkArgs({ ...shape, query: shape.query.filter((q) => !['search', 'limit', 'offset'].includes(q)) }, filters, [], `${resource}.`)
    const query = { ...filters, search: args.query, limit: args.limit, offset: args.offset }
    const page = await rest(ctx, toRequest(route, shape, query, fixed), ++n, listBudget(searched.length))
    const kept = { items: page.items as unknown[], total: page.total as number }
    markNext(kept, Number(page.offset ?? 0))
    out[resource] = kept
  }
  return out
}

const WEEK_MS = 7 * 86_400_000

/** calendar and due_tasks: one list route, with the tool's defaults. */
async function runList(ctx: CallContext, bound: ListTool, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const resource: Resource = bound.kind === 'due_tasks' ? 'tasks' : 'events'
  const { route, shape } = bound.routes[resource] as { route: RouteTool['route']; shape: InputShape }
  checkArgs(shape, args, ['format'])
  const fixed: Record<string, string> = formatOf(args) === 'full' ? {} : { format: 'compact' }
  const { format: _format, ...query } = args
  if (bound.kind === 'calendar') {
    // "What is on": a range always, this week unless one is given.
    if (query.date === undefined && query.from === undefined && query.to === undefined) query.date = 'this_week'
  } else {
    // "What is due": open tasks, due within a week unless a bound is given (overdue ones included).
    query.status ??= ['needs-action', 'in-process']
    query.due_before ??= new Date(Date.now() + WEEK_MS).toISOString()
  }
  const page = (await rest(ctx, toRequest(route, shape, query, fixed), 1, listBudget(1))) as Record<string, unknown> & {
    items: unknown[]
    offset?: number
  }
  markNext(page, Number(page.offset ?? 0))
  return page
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

/** A page's own offset (calendar answers it), else the one the search asked for. */
const offsetOf = (args: Record<string, unknown>) => (page: { offset?: number }) =>
  page.offset ?? (typeof args.offset === 'number' ? args.offset : Number(args.offset ?? 0) || 0)

export async function callTool(ctx: CallContext, bound: BoundTool, args: Record<string, unknown>): Promise<ToolResult> {
  try {
    const result =
      bound.kind === 'route'
        ? await runRoute(ctx, bound, args)
        : bound.kind === 'search'
          ? await runSearch(ctx, bound, args)
          : await runList(ctx, bound, args)
    // At most RESULT_LIMIT bytes, text and structured content together (result-size.ts). Measuring and
    // writing a result of a megabyte each take a slice of the event loop: other work runs between them.
    await nextTurn()
    const fitted = await pacedSteps(fitResultSteps(result, offsetOf(args)))
    await nextTurn()
    return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted }
  } catch (err) {
    if (!(err instanceof ToolFailure)) throw err
    const { code, message, details } = err.error
    const summary = `${code}: ${message}${details ? ` ${JSON.stringify(details)}` : ''}`
    return { content: [{ type: 'text', text: summary }], structuredContent: { error: err.error }, isError: true }
  }
}
