import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox'
import { Nullable, Timestamp, Uuid } from '../../../core/plugin-api.js'

/** TypeBox pieces every resource definition shares. */

export const NullableText = (maxLength = 10_000) => Nullable(Type.String({ maxLength }))

/**
 * An email address: `local@domain`, no white space, control characters, quotes or brackets, one @.
 * Lenient enough for what address books hold, strict enough that no value can break a vCard or
 * iCalendar line (a CR/LF in an attendee once forged a second VEVENT). Linear: the classes exclude @.
 */
export const Email = Type.String({
  minLength: 3,
  maxLength: 320,
  pattern: '^[^\\s@<>()\\[\\]\\\\,;:"\\u0000-\\u001f\\u007f]+@[^\\s@<>()\\[\\]\\\\,;:"\\u0000-\\u001f\\u007f]+$',
})

export const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })

/** Arbitrary key-value data; null values in a write remove keys. */
export const CustomFields = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.Unknown())

/** The fields the engine itself manages, appended to every record. */
export const managedFields = {
  source: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Nullable(Timestamp),
  etag: Type.String({
    pattern: '^"[0-9]+"$',
    description:
      'Entity tag of this version of the record (strong, quoted); every write changes it. Send it in If-Match to write only if nobody changed the record since.',
  }),
}

/** Response schema of a full record: id, the resource's fields, then the managed fields. */
export function recordSchema(fields: TProperties, example?: object): TObject {
  return Type.Object(
    { id: Uuid, owner_id: OwnerId, ...fields, custom_fields: Nullable(CustomFields), ...managedFields },
    example ? { examples: [example] } : {},
  )
}

/** Whose record it is (read-only; docs/api.md "Sharing"). */
const OwnerId = Type.String({
  format: 'uuid',
  description: 'the member whose record this is: you, or whoever shares its collection with you',
})

/** POST body: the writable fields, `required` listed, nothing else accepted. */
export function createSchema(fields: TProperties, required: string[], example?: object): TObject {
  const props: TProperties = {}
  for (const [key, schema] of Object.entries({ ...fields, custom_fields: Nullable(CustomFields) })) {
    props[key] = required.includes(key) ? schema : Type.Optional(schema)
  }
  props.owner_id = Type.Optional(
    Type.String({
      format: 'uuid',
      description: "default: you. Another member's id writes into their collection, which they share with you for writing",
    }),
  )
  return Type.Object(props, { additionalProperties: false, ...(example ? { examples: [example] } : {}) })
}

/** PATCH body: the same fields, all optional. */
export function patchSchema(fields: TProperties): TObject {
  const props: TProperties = {}
  for (const [key, schema] of Object.entries({ ...fields, custom_fields: Nullable(CustomFields) })) {
    props[key] = Type.Optional(schema as TSchema)
  }
  return Type.Object(props, { additionalProperties: false })
}
