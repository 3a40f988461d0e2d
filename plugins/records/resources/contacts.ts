import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Uuid } from '../../../core/plugin-api.js'
import { createSchema, Email, NullableText, patchSchema, recordSchema, Tags } from '../engine/schema-kit.js'
import type { ApiRecord, ResourceDefinition } from '../engine/types.js'
import { examples } from './examples.js'
import { invalid } from '../engine/validate.js'
import { contactDefaults } from '../formats/types.js'

/** Contacts (api.md, Contact): names, e-mails, phones, addresses, company. */

const EmailLabel = StringEnum(['work', 'personal', 'other'] as const)
const PhoneLabel = StringEnum(['mobile', 'work', 'home', 'other'] as const)
const addressKeys = ['street', 'city', 'state', 'postal_code', 'country', 'label'] as const

/** Item schemas: label defaults to 'other' and primary to false when omitted. */
const items = (required: boolean) => {
  const opt = <T extends Parameters<typeof Type.Optional>[0]>(s: T) => (required ? s : Type.Optional(s))
  return {
    email: Type.Object({ address: Email, label: opt(EmailLabel), primary: opt(Type.Boolean()) }, { additionalProperties: false }),
    phone: Type.Object(
      { number: Type.String({ minLength: 1, maxLength: 64 }), label: opt(PhoneLabel), primary: opt(Type.Boolean()) },
      { additionalProperties: false },
    ),
    address: Type.Object(Object.fromEntries(addressKeys.map((k) => [k, opt(NullableText(500))])), { additionalProperties: false }),
  }
}

const fieldsWith = (it: ReturnType<typeof items>) => ({
  display_name: Type.String({ maxLength: 300 }),
  first_name: NullableText(200),
  last_name: NullableText(200),
  emails: Type.Array(it.email, { maxItems: 100 }),
  phones: Type.Array(it.phone, { maxItems: 100 }),
  company: NullableText(300),
  job_title: NullableText(300),
  addresses: Type.Array(it.address, { maxItems: 50 }),
  notes: NullableText(100_000),
  avatar_path: NullableText(4096),
  tags: Tags,
})
const writable = fieldsWith(items(false))
const HasPhoto = Type.Boolean({ description: 'a photo is stored: GET /contacts/{id}/photo serves it (set with PUT, removed with DELETE)' })

type Item = Record<string, unknown>

function normalizeItems(record: Record<string, unknown>): void {
  const fill = (list: unknown, defaults: Item) => (list as Item[] | undefined)?.map((item) => ({ ...defaults, ...item }))
  if (record.emails) record.emails = fill(record.emails, { label: 'other', primary: false })
  if (record.phones) record.phones = fill(record.phones, { label: 'other', primary: false })
  if (record.addresses) record.addresses = fill(record.addresses, Object.fromEntries(addressKeys.map((k) => [k, null])))
}

/** docs/api.md: first_name + " " + last_name, trimmed. */
export function displayNameFrom(record: Record<string, unknown>): string {
  return [record.first_name, record.last_name]
    .map((s) => (typeof s === 'string' ? s.trim() : ''))
    .filter(Boolean)
    .join(' ')
}

const primaryOrFirst = (list: unknown, key: string): unknown => {
  const all = (list as Item[] | undefined) ?? []
  return (all.find((i) => i.primary) ?? all[0])?.[key]
}

export const contacts: ResourceDefinition = {
  name: 'contacts',
  singular: 'contact',
  columns: {
    display_name: 'text',
    first_name: 'text',
    last_name: 'text',
    emails: 'json',
    phones: 'json',
    company: 'text',
    job_title: 'text',
    addresses: 'json',
    notes: 'text',
    avatar_path: 'text',
    has_photo: 'bool',
    tags: 'json',
    custom_fields: 'json',
  },
  sharing: { kind: 'addressbook', column: null },
  fts: { table: 'contacts_fts', weights: [10, 5, 5, 3, 1] },
  schemas: {
    record: recordSchema({ ...fieldsWith(items(true)), has_photo: HasPhoto }, examples.contacts.record),
    create: createSchema(writable, [], examples.contacts.create),
    patch: patchSchema({ ...writable, display_name: Nullable(writable.display_name) }),
    listFilters: Type.Object({
      tag: Type.Array(Type.String({ minLength: 1 }), { maxItems: 20 }),
      company: Type.String({ minLength: 1, maxLength: 300, description: 'partial match, case-insensitive' }),
    }),
    compact: Type.Object({
      id: Uuid,
      display_name: Type.String(),
      email: Type.Optional(Type.String()),
      phone: Type.Optional(Type.String()),
      company: Type.Optional(Type.String()),
    }),
  },
  sort: {
    keys: ['display_name', 'created_at', 'updated_at', 'company'],
    default: 'display_name',
    order: 'asc',
    nocase: ['display_name', 'company'],
    nullable: ['company'],
  },
  counted: { archived: false },
  rowLocalFilters: true,
  stateIndexes: [{ index: 'contacts_user_trash', state: { deleted: true } }],
  defaults: { ...contactDefaults(), has_photo: false },
  // Set by the photo routes and imports (with the photo itself), never by a create or PATCH body.
  importExtras: { has_photo: Type.Boolean() },
  complete(record) {
    normalizeItems(record)
    if (typeof record.display_name === 'string' && record.display_name.trim()) {
      record.display_name = record.display_name.trim()
      return
    }
    const derived = displayNameFrom(record)
    if (!derived) throw invalid('display_name', 'required', 'display_name is required when first_name and last_name are both empty')
    record.display_name = derived
  },
  filters(query) {
    // fold() is registered by the engine: Unicode-aware lower case (SQLite's lower() knows only ASCII).
    return query.company !== undefined
      ? [{ sql: 'instr(records_fold(t.company), ?) > 0', params: [String(query.company).toLowerCase()] }]
      : []
  },
  compact(r: ApiRecord) {
    return {
      id: r.id,
      display_name: r.display_name,
      email: primaryOrFirst(r.emails, 'address'),
      phone: primaryOrFirst(r.phones, 'number'),
      company: r.company,
    }
  },
}
