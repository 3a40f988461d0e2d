/**
 * An object keyed by HTTP status codes ('200', '400', '503'...), built with its integer keys in V8's
 * dictionary elements. Built key by key (Object.fromEntries, a loop, a spread), such an object gets V8's
 * fast holey elements instead: an array as long as its largest code plus growth slack, about 2.5 KB per
 * object for a handful of entries, where an object literal `{ 200: ..., 400: ... }` gets a dictionary of
 * ~150 bytes. Every route's response map lives as long as the daemon (its schema, Fastify's route context,
 * the OpenAPI document's source), ~300 of them: 0.7 MB of idle heap (heap snapshot, docs/performance.md
 * "Idle memory (fifth pass)"). Same keys, values and key order (integer keys enumerate ascending either way).
 */
export function statusMap<T>(entries: Iterable<readonly [string, T]>): Record<string, T> {
  const map: Record<string, T> = {}
  // An index far beyond the last one switches the elements to a dictionary; deleting it keeps the dictionary.
  map[SWITCH] = undefined as T
  delete map[SWITCH]
  for (const [key, value] of entries) map[key] = value
  return map
}

const SWITCH = String(2 ** 24)
