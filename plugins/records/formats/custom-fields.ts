import { type ContentLine, contentLine, escapeText, unescapeText } from '../../../lib/content-line/lines.js'
import type { CustomFields } from './types.js'

/**
 * custom_fields travel in vCard and iCalendar as one `X-HEARTH-FIELD`
 * property per key: the key in an `X-KEY` parameter (property names cannot
 * hold arbitrary keys), strings as text, anything else as JSON marked
 * `X-TYPE=json`, so every value comes back with its type.
 */
export const CUSTOM_FIELD_PROPERTY = 'X-HEARTH-FIELD'

export function customFieldLines(fields: CustomFields, skip: ReadonlySet<string> = new Set()): string[] {
  if (!fields) return []
  return Object.entries(fields)
    .filter(([key, value]) => value !== null && value !== undefined && !skip.has(key))
    .map(([key, value]) =>
      typeof value === 'string'
        ? contentLine(CUSTOM_FIELD_PROPERTY, [['X-KEY', key]], escapeText(value))
        : contentLine(
            CUSTOM_FIELD_PROPERTY,
            [
              ['X-KEY', key],
              ['X-TYPE', 'json'],
            ],
            escapeText(JSON.stringify(value)),
          ),
    )
}

/** Reads one X-HEARTH-FIELD line into `[key, value]`; throws on a missing key or bad JSON. */
export function readCustomField(cl: ContentLine): [string, unknown] {
  const key = cl.params.get('X-KEY')?.[0]
  if (!key) throw new Error(`line ${cl.line}: ${CUSTOM_FIELD_PROPERTY} without X-KEY`)
  const text = unescapeText(cl.value)
  if (cl.params.get('X-TYPE')?.[0]?.toLowerCase() !== 'json') return [key, text]
  try {
    return [key, JSON.parse(text)]
  } catch {
    throw new Error(`line ${cl.line}: ${CUSTOM_FIELD_PROPERTY} ${key} holds invalid JSON`)
  }
}

/** Adds a value under a key; a repeated key collects its values in an array. */
export function addField(fields: Record<string, unknown>, key: string, value: unknown): void {
  if (!(key in fields)) fields[key] = value
  else if (Array.isArray(fields[key])) (fields[key] as unknown[]).push(value)
  else fields[key] = [fields[key], value]
}
