import { statusMap } from './status-map.js'

/**
 * The response map a route gives Fastify, where a route's only 2xx code is keyed '2xx'. Fastify builds its
 * own map of compiled serializers from these keys (lib/validation.js, `reduce(..., {})`): an integer-like key
 * such as '200' on that empty object makes V8 allocate fast holey elements as long as the code plus slack,
 * 2,552 bytes for `{ 200 }`, one per route and HEAD twin (~450 KB of idle heap, docs/performance.md "Idle
 * memory (sixth pass)"); '2xx' is a named property of a few bytes. Fastify's reply finds a serializer by the
 * exact code, then by `${first digit}xx`, then 'default', so every declared code is written as before. What
 * changes: another 2xx code the route does not declare, answered with a body, is written by the declared
 * schema instead of JSON.stringify (docs/plugins.md). Routes declaring several 2xx codes keep their keys.
 */
export function serializerKeys<T>(responses: Record<string, T>): Record<string, T> {
  const success = Object.keys(responses).filter((status) => status.startsWith('2'))
  const only = success.length === 1 ? success[0] : undefined
  if (only === undefined || !CODE.test(only)) return responses
  const entries = Object.entries(responses).map(([status, schema]) => [status === only ? '2xx' : status, schema] as const)
  // Other codes (a 503 of /health) stay integer keys: kept in dictionary elements as the declared map is.
  const keyed = entries.some(([status]) => CODE.test(status)) ? statusMap(entries) : Object.fromEntries(entries)
  declared.set(keyed, responses)
  return keyed
}

/** The responses by their declared codes, for the OpenAPI document: what `serializerKeys` was given. */
export function declaredResponses<T>(responses: Record<string, T> | undefined): Record<string, T> | undefined {
  return responses && ((declared.get(responses) as Record<string, T> | undefined) ?? responses)
}

const CODE = /^\d{3}$/
// Keyed by the map given to Fastify: the document's transform sees it on the route's schema.
const declared = new WeakMap<object, object>()
