import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Uuid } from '../../../core/plugin-api.js'
import { createSchema, Email, NullableText, patchSchema, recordSchema, Tags } from '../engine/schema-kit.js'
import type { ApiRecord, ResourceDefinition, SqlClause } from '../engine/types.js'
import { examples } from './examples.js'
import { invalid } from '../engine/validate.js'
import { contactDefaults } from '../formats/types.js'
import { parseCanonicalDate } from '../../../lib/vcard/dates.js'

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
    url: Type.Object(
      {
        url: Type.String({ minLength: 1, maxLength: 2048, pattern: '^[^\\s]+$', description: 'kept as given, never fetched' }),
        label: opt(NullableText(100)),
      },
      { additionalProperties: false },
    ),
  }
}

/** YYYY-MM-DD, or --MM-DD when the year is not known; the day must exist (Feb 29 without a year or in a leap year). */
const PartialDate = (what: string) =>
  Nullable(
    Type.String({
      pattern: '^(\\d{4}|-)-\\d{2}-\\d{2}$',
      description: `${what}: YYYY-MM-DD, or --MM-DD without a year`,
      examples: ['1815-12-10', '--12-10'],
    }),
  )
const DATE_FIELDS = ['birthday', 'anniversary'] as const
const Group = Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f]+$' })

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
  nickname: NullableText(200),
  birthday: PartialDate('birthday'),
  anniversary: PartialDate('anniversary (of a wedding, or any yearly date the contact keeps)'),
  urls: Type.Array(it.url, { maxItems: 50 }),
  groups: Type.Array(Group, {
    maxItems: 100,
    description: "the address book's groups the contact belongs to (vCard CATEGORIES, Apple's group cards)",
  }),
})
const writable = fieldsWith(items(false))
const HasPhoto = Type.Boolean({ description: 'a photo is stored: GET /contacts/{id}/photo serves it (set with PUT, removed with DELETE)' })

type Item = Record<string, unknown>

function normalizeItems(record: Record<string, unknown>): void {
  const fill = (list: unknown, defaults: Item) => (list as Item[] | undefined)?.map((item) => ({ ...defaults, ...item }))
  if (record.emails) record.emails = fill(record.emails, { label: 'other', primary: false })
  if (record.phones) record.phones = fill(record.phones, { label: 'other', primary: false })
  if (record.addresses) record.addresses = fill(record.addresses, Object.fromEntries(addressKeys.map((k) => [k, null])))
  if (record.urls) record.urls = fill(record.urls, { label: null })
  // A group named twice is one membership.
  if (Array.isArray(record.groups)) record.groups = [...new Set(record.groups as string[])]
}

/** The schema checks the form; the day must also exist (2023-02-29 does not, --02-29 does). */
function checkDates(record: Record<string, unknown>): void {
  for (const key of DATE_FIELDS) {
    const value = record[key]
    if (typeof value === 'string' && !parseCanonicalDate(value))
      throw invalid(key, 'date', `${key} must be a real date: YYYY-MM-DD, or --MM-DD without a year`)
  }
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
    nickname: 'text',
    birthday: 'text',
    anniversary: 'text',
    urls: 'json',
    groups: 'json',
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
      group: Type.Array(Group, { maxItems: 20, description: 'exact group name; repeatable, combined with AND' }),
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
    checkDates(record)
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
    const out: SqlClause[] =
      query.company !== undefined ? [{ sql: 'instr(records_fold(t.company), ?) > 0', params: [String(query.company).toLowerCase()] }] : []
    for (const group of new Set((query.group as string[] | undefined) ?? [])) {
      out.push({ sql: 'EXISTS (SELECT 1 FROM json_each(t.groups) WHERE value = ?)', params: [group] })
    }
    return out
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
