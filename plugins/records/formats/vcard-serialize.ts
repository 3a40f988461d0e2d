import { contentLine, escapeText } from '../../../lib/content-line/lines.js'
import { formatStamp } from '../../../lib/content-line/stamps.js'
import { typedParams, type VCardVersion } from '../../../lib/vcard/params.js'
import { customFieldLines } from './custom-fields.js'
import type { ContactRecord } from './types.js'
import { EXTRA_PROPERTIES } from './vcard-parse.js'
import { detailLines } from './vcard-details.js'
import { photoLine } from './vcard-photo.js'

export type { VCardVersion }

const EMAIL_TYPE = { work: 'work', personal: 'home', other: 'other' } as const
const PHONE_TYPE = { mobile: 'cell', work: 'work', home: 'home', other: 'other' } as const
/** custom_fields keys written back as their standard property (BDAY, NICKNAME...). */
const EXTRA_BY_KEY = new Map(Object.entries(EXTRA_PROPERTIES).map(([prop, key]) => [key, prop]))

/** `photo`: the contact's stored JPEG, written as an inline PHOTO. */
export type ExportedContact = ContactRecord & { id?: string; photo?: Buffer | null }

/** Contacts → one vCard file (CRLF, folded at 75 octets). */
export function serializeVCards(contacts: ExportedContact[], version: VCardVersion = '4.0'): string {
  return contacts.map((c) => serializeVCard(c, version)).join('')
}

/** The same file a card at a time, each written when it is asked for (an export holds one batch). */
export function* vcardChunks(batches: Iterable<ExportedContact[]>, version: VCardVersion = '4.0'): Generator<string> {
  for (const batch of batches) for (const c of batch) yield serializeVCard(c, version)
}

export function serializeVCard(c: ExportedContact, version: VCardVersion): string {
  const v4 = version === '4.0'
  const lines = ['BEGIN:VCARD', `VERSION:${version}`, 'PRODID:-//Hearth//Hearth Records//EN']
  if (c.id) lines.push(`UID:${v4 ? `urn:uuid:${c.id}` : c.id}`)
  lines.push(contentLine('FN', [], escapeText(c.display_name)))
  lines.push(contentLine('N', [], [c.last_name ?? '', c.first_name ?? '', '', '', ''].map(escapeText).join(';')))
  // ORG's second component is the organisational unit (RFC 6350 6.6.4): other clients read it there.
  const unit = typeof c.custom_fields?.department === 'string' ? c.custom_fields.department : null
  if (c.company || unit) lines.push(contentLine('ORG', [], [c.company ?? '', ...(unit ? [unit] : [])].map(escapeText).join(';')))
  if (c.job_title) lines.push(contentLine('TITLE', [], escapeText(c.job_title)))
  for (const e of c.emails) {
    const type = v4 ? [EMAIL_TYPE[e.label] ?? 'other'] : ['internet', EMAIL_TYPE[e.label] ?? 'other']
    lines.push(contentLine('EMAIL', typedParams(type, e.primary, version), escapeText(e.address)))
  }
  for (const p of c.phones) {
    const params = typedParams([PHONE_TYPE[p.label] ?? 'other'], p.primary, version)
    // vCard 4.0's TEL defaults to a URI; numbers as people type them are text.
    lines.push(contentLine('TEL', v4 ? [['VALUE', 'text'], ...params] : params, escapeText(p.number)))
  }
  for (const a of c.addresses) {
    const parts = ['', '', a.street, a.city, a.state, a.postal_code, a.country].map((s) => escapeText(s ?? ''))
    lines.push(contentLine('ADR', a.label ? [['TYPE', a.label]] : [], parts.join(';')))
  }
  if (c.notes) lines.push(contentLine('NOTE', [], escapeText(c.notes)))
  lines.push(...detailLines(c, version))
  if (c.avatar_path) lines.push(contentLine('X-HEARTH-AVATAR-PATH', [], escapeText(c.avatar_path)))
  if (c.source) lines.push(contentLine('X-HEARTH-SOURCE', [], escapeText(c.source)))
  const written = new Set<string>(unit ? ['department'] : [])
  for (const [key, prop] of EXTRA_BY_KEY) {
    // A field holding the value: the custom field of an older import stays a custom field.
    if (c[key as keyof ExportedContact] !== undefined && c[key as keyof ExportedContact] !== null) continue
    const value = c.custom_fields?.[key]
    const values =
      typeof value === 'string'
        ? [value]
        : Array.isArray(value) && value.length > 1 && value.every((x) => typeof x === 'string')
          ? value
          : null
    if (!values) continue
    for (const item of values) lines.push(contentLine(prop, [], escapeText(item)))
    written.add(key)
  }
  lines.push(...customFieldLines(c.custom_fields, written))
  if (c.photo) lines.push(photoLine(c.photo, version))
  if (c.updated_at) lines.push(`REV:${formatStamp(c.updated_at)}`)
  lines.push('END:VCARD')
  return `${lines.join('\r\n')}\r\n`
}
