/**
 * What a client may send: `{ "subscribe": ["note.*", "event.created"] }`
 * (docs/api.md, realtime events). Anything else is answered with an
 * `error` control message carrying the API's error shape; the connection stays open.
 */
export const MAX_PATTERNS = 64
/** '*', an exact name ('note.created', 'dns.record.updated') or a prefix wildcard ('note.*', 'dns.*'). */
const PATTERN = /^(\*|[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*(\.\*)?)$/

export interface ClientError {
  code: 'VALIDATION_ERROR'
  message: string
  details: { field: string; constraint: string }
}

export function parseClientMessage(text: string | null): { subscribe: string[] } | { error: ClientError } {
  const fail = (field: string, constraint: string, message: string) => ({
    error: { code: 'VALIDATION_ERROR' as const, message, details: { field, constraint } },
  })
  if (text === null) return fail('message', 'type', 'messages must be JSON text')
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return fail('message', 'json', 'message is not valid JSON')
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return fail('message', 'type', 'message must be a JSON object')
  const extra = Object.keys(body).find((key) => key !== 'subscribe')
  if (extra) return fail(extra, 'additionalProperties', `unknown field ${extra}`)
  const subscribe = (body as { subscribe?: unknown }).subscribe
  if (subscribe === undefined) return fail('subscribe', 'required', 'subscribe is required')
  if (!Array.isArray(subscribe)) return fail('subscribe', 'type', 'subscribe must be an array of event patterns')
  if (subscribe.length > MAX_PATTERNS) return fail('subscribe', 'maxItems', `at most ${MAX_PATTERNS} patterns`)
  const bad = subscribe.findIndex((p) => typeof p !== 'string' || !PATTERN.test(p))
  if (bad >= 0) return fail(`subscribe/${bad}`, 'pattern', 'patterns look like "note.created", "note.*" or "*"')
  return { subscribe: [...new Set(subscribe as string[])] }
}

/** The connect-time query of `/ws`: `since` (a seq) and `subscribe` (comma-separated patterns), checked before the upgrade. */
export function parseConnectQuery(query: Record<string, unknown>): { since?: number; subscribe?: string[] } | { error: ClientError } {
  const fail = (field: string, constraint: string, message: string) => ({
    error: { code: 'VALIDATION_ERROR' as const, message, details: { field, constraint } },
  })
  const out: { since?: number; subscribe?: string[] } = {}
  const since = query.since
  if (since !== undefined) {
    if (typeof since !== 'string' || !/^(0|[1-9][0-9]{0,14})$/.test(since))
      return fail('since', 'type', 'since is the seq of the last event received: a non-negative integer')
    out.since = Number(since)
  }
  const subscribe = query.subscribe
  if (subscribe !== undefined) {
    if (typeof subscribe !== 'string') return fail('subscribe', 'type', 'subscribe is one comma-separated list of event patterns')
    const patterns = subscribe === '' ? [] : subscribe.split(',')
    if (patterns.length > MAX_PATTERNS) return fail('subscribe', 'maxItems', `at most ${MAX_PATTERNS} patterns`)
    if (patterns.some((p) => !PATTERN.test(p))) return fail('subscribe', 'pattern', 'patterns look like "note.created", "note.*" or "*"')
    out.subscribe = [...new Set(patterns)]
  }
  return out
}
