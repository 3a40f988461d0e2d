/**
 * Answers already in their wire form. A plugin that keeps an object's JSON
 * text (a cache of records) attaches it here; the response serializer then
 * splices the texts into the envelope instead of serializing the objects
 * again. A WeakMap, not a property: spreading or copying the object (an
 * occurrence made from a series, a compact projection) never carries a text
 * that no longer matches.
 */
const texts = new WeakMap<object, string>()

/** Attaches `json` (exactly what the route's response schema would write for `value`) and returns `value`. */
export function withJsonText<T extends object>(value: T, json: string): T {
  texts.set(value, json)
  return value
}

export function jsonTextOf(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined
}

/**
 * The envelope `{ data, ...rest }` written from the texts of its data (one
 * object or a list of them), or undefined when any piece has no text or its
 * keys are not exactly the properties the route declares for it, in any order (`shapes`:
 * the data schema's property names, one list per branch of a union): then the
 * route's serializer writes the whole answer as usual, so a route declaring a
 * narrower schema never sends more than it declares. `rest` (meta, tier) is
 * numbers and plain strings, written by JSON.stringify in the envelope's order.
 */
export function spliceEnvelope(payload: unknown, shapes: readonly string[][]): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined
  const envelope = payload as Record<string, unknown>
  const data = envelope.data
  let text: string | undefined
  if (Array.isArray(data)) {
    if (data.length === 0) return undefined
    const parts = new Array<string>(data.length)
    for (let i = 0; i < data.length; i++) {
      const part = jsonTextOf(data[i])
      if (part === undefined || !hasShape(data[i] as object, shapes)) return undefined
      parts[i] = part
    }
    text = `[${parts.join(',')}]`
  } else {
    text = jsonTextOf(data)
    if (text === undefined || !hasShape(data as object, shapes)) return undefined
  }
  let out = `{"data":${text}`
  for (const key in envelope) {
    if (key !== 'data' && envelope[key] !== undefined) out += `,${JSON.stringify(key)}:${JSON.stringify(envelope[key])}`
  }
  return `${out}}`
}

/**
 * The object has exactly the properties of one shape, in any order: the text was written by a schema
 * serializer, which writes the schema's order whatever the object's.
 */
export function hasShape(value: object, shapes: readonly string[][]): boolean {
  let count = 0
  for (const _ in value) count++
  return shapes.some((shape) => shape.length === count && shape.every((key) => Object.hasOwn(value, key)))
}

interface DataSchema {
  type?: unknown
  properties?: Record<string, DataSchema>
  items?: DataSchema
  anyOf?: DataSchema[]
}

/** The property lists an envelope's data may have for splicing: from `{ data: Object }` or `{ data: Array<Object | Union> }`. */
export function dataShapes(responseSchema: unknown): string[][] {
  const data = (responseSchema as DataSchema | undefined)?.properties?.data
  const item = data?.type === 'array' ? data.items : data
  const branches = item?.anyOf ?? (item ? [item] : [])
  return branches.flatMap((b) => (b.type === 'object' && b.properties ? [Object.keys(b.properties)] : []))
}
