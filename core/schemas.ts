import { type Static, type TSchema, Type } from '@sinclair/typebox'

/** Shared TypeBox pieces: the envelope, ids, timestamps and list paging. */

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' })
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 datetime' })
export const Tier = Type.Union([Type.Literal('free'), Type.Literal('pro')])
export type Tier = Static<typeof Tier>
export const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('user')])
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

/**
 * Routes declare what their handler returns; the core wraps both the payload
 * and the response schema into the envelope (core/envelope.ts). So a route
 * answering one record declares `response: { 200: Note }` (or `Single(Note)`,
 * the same schema, for readability) and returns the note.
 */
export const Single = <T extends TSchema>(record: T): T => record

/** What a list route (config `envelope: 'list'`) declares and returns: `{ items, total }`. */
export const ListOf = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item), total: Type.Integer() })

/** The enveloped shapes on the wire, built by the core from the two above. */
export const SingleEnvelope = <T extends TSchema>(data: T) => Type.Object({ data })
export const ListEnvelope = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), meta: ListMeta, tier: Tier })

/** What a list route returns; the core shapes the envelope. */
export interface Page<T> {
  items: T[]
  total: number
}

/** An unpaged collection as a list route returns it: every item (meta shows limit = total, offset 0). */
export const everything = <T>(items: T[]): Page<T> => ({ items, total: items.length })

/** `{ ok: true }`-style acknowledgement for actions without a record to return. */
export const Ack = Type.Object({ ok: Type.Boolean() })
