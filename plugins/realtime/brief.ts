import type { HearthEvent } from '../../core/plugin-api.js'

/**
 * The brief form of an event message, journaled in place of one too large to keep (a record with a
 * 1 MB note body): the same `type`, `id`, `at` and `seq`, `data` holding only the fields up to
 * FIELD_BYTES (the record's id, etag, dates, flags...), and `truncated` naming the fields left out.
 * A client resuming from the journal reads those from the record itself, by its id, through the API.
 * Data that is not an object is left out whole (`truncated: ["data"]`).
 */
const FIELD_BYTES = 1024

export function briefMessage(event: HearthEvent, seq: number, maxBytes: number): string {
  const head = { type: event.type, id: event.id ?? null, at: event.at, seq }
  const data = event.data
  if (!data || typeof data !== 'object' || Array.isArray(data)) return JSON.stringify({ ...head, data: null, truncated: ['data'] })
  const kept: Record<string, unknown> = {}
  const truncated: string[] = []
  let bytes = 0
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const size = Buffer.byteLength(JSON.stringify(value) ?? '') + key.length
    // Half the limit for the kept fields: the rest of the message always fits beside them.
    if (size <= FIELD_BYTES && bytes + size <= maxBytes / 2) {
      kept[key] = value
      bytes += size
    } else truncated.push(key)
  }
  return JSON.stringify({ ...head, data: kept, truncated })
}
