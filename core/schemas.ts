import { Kind, type Static, type TSchema, Type, TypeRegistry } from '@sinclair/typebox'

/** Shared TypeBox pieces: the envelope, ids, timestamps and list paging. */

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' })
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 datetime' })
// TypeBox's own checks (Value.Check, used on drivers' output and config) learn the kind StringEnum builds.
if (!TypeRegistry.Has('StringEnum')) {
  TypeRegistry.Set<{ enum: unknown[] }>('StringEnum', (schema, value) => typeof value === 'string' && schema.enum.includes(value))
}

/** A string enum as JSON Schema `enum` (one clear `enum` constraint on failure, and a plain enum in OpenAPI). */
export const StringEnum = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Unsafe<T>({ [Kind]: 'StringEnum', type: 'string', enum: [...values], ...options })

export const Tier = StringEnum(['free', 'pro'] as const)
export type Tier = Static<typeof Tier>
export const Role = StringEnum(['owner', 'admin', 'user'] as const)
export type Role = Static<typeof Role>

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const IdParams = Type.Object({ id: Uuid })
export type IdParams = Static<typeof IdParams>

export const MAX_LIMIT = 200
export const Limit = Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: 20 })
// Bounded so that no offset overflows SQLite's 64-bit integers.
export const Offset = Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 })
export const PageQuery = Type.Object({ limit: Limit, offset: Offset })

export const ListMeta = Type.Object({
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
})

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
  },
  { $id: 'ErrorResponse' },
)

/** Marks a response schema built by Single or ListOf: the route pipeline reads it (core/route-pipeline.ts). */
export const ENVELOPE: unique symbol = Symbol.for('hearth.envelope')

export interface EnvelopeMark<M extends 'single' | 'list', R extends TSchema> {
  readonly [ENVELOPE]: { mode: M; record: R }
}

const mark = <S extends TSchema, M extends 'single' | 'list', R extends TSchema>(schema: S, mode: M, record: R) =>
  Object.assign(schema, { [ENVELOPE]: { mode, record } }) as S & EnvelopeMark<M, R>

/**
 * A route answering one record declares `response: { 200: Single(Note) }`: the
 * schema is the wire shape `{ data: Note }`, the handler returns the note, and
 * the core wraps it (the Hearth type provider types the handler's return as the record).
 */
export const Single = <T extends TSchema>(record: T) =>
  mark(
    Type.Object(
      { data: record },
      examplesOf(record, (e) => ({ data: e })),
    ),
    'single',
    record,
  )

/**
 * A paged list declares `response: { 200: ListOf(Item) }`: the wire shape
 * `{ data: Item[], meta: { total, limit, offset }, tier }`; the handler returns
 * `{ items, total }` and the core adds meta (from the validated limit/offset) and tier.
 */
export const ListOf = <T extends TSchema>(item: T) =>
  mark(
    Type.Object(
      { data: Type.Array(item), meta: ListMeta, tier: Tier },
      examplesOf(item, (e) => ({ data: [e], meta: { total: 1, limit: 20, offset: 0 }, tier: 'free' })),
    ),
    'list',
    item,
  )

/** A record's example, shown in its envelope (the OpenAPI document's response examples). */
function examplesOf(record: TSchema, wrap: (example: unknown) => unknown): { examples?: unknown[] } {
  return Array.isArray(record.examples) ? { examples: record.examples.map(wrap) } : {}
}

/** How the core wraps a route's answer, from its 2xx schema; undefined for a schema not built by Single or ListOf. */
export function envelopeOf(schema: unknown): { mode: 'single' | 'list'; record: TSchema } | undefined {
  return (schema as Partial<EnvelopeMark<'single' | 'list', TSchema>> | undefined)?.[ENVELOPE]
}

/** What a list route returns; the core shapes the envelope. */
export interface Page<T> {
  items: T[]
  total: number
}

/** An unpaged collection as a list route returns it: every item (meta shows limit = total, offset 0). */
export const everything = <T>(items: T[]): Page<T> => ({ items, total: items.length })

/** `{ ok: true }`-style acknowledgement for actions without a record to return. */
export const Ack = Type.Object({ ok: Type.Boolean() })
