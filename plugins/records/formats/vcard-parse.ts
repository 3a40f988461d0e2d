import { type Component, parseComponents } from '../../../lib/content-line/components.js'
import { type ContentLine, splitEscaped, unescapeText } from '../../../lib/content-line/lines.js'
import { parseStamp } from '../../../lib/content-line/stamps.js'
import { decodeQuotedPrintable, groupLabels, prefRank, typeValues } from '../../../lib/vcard/params.js'
import { addField, CUSTOM_FIELD_PROPERTY, readCustomField } from './custom-fields.js'
import { readDetail } from './vcard-details.js'
import { cardPhoto } from './vcard-photo.js'
import {
  type ContactAddress,
  type ContactEmail,
  type ContactPhone,
  type ContactRecord,
  contactDefaults,
  type ParseResult,
} from './types.js'

/**
 * vCard 2.1/3.0/4.0 → contacts. Reads what Apple Contacts, Google and
 * Nextcloud write: grouped properties with X-ABLabel labels, TYPE lists in
 * any case, PREF parameters or TYPE=pref, `tel:` URIs. Birthdays, anniversaries,
 * nicknames, URLs and categories are read by vcard-details.ts. Properties Hearth
 * has no field for (foreign X- properties, a BDAY in words) land in
 * custom_fields so nothing a user typed is silently lost.
 */

/**
 * Standard properties older versions kept as custom fields, under these keys: a contact whose custom
 * field still holds one (a value no field takes) has it written back as that property.
 */
export const EXTRA_PROPERTIES: Record<string, string> = { BDAY: 'birthday', NICKNAME: 'nickname', URL: 'url', ANNIVERSARY: 'anniversary' }

const IGNORED = new Set([
  'VERSION',
  'PRODID',
  'UID',
  'PHOTO',
  'LOGO',
  'SOUND',
  'KEY',
  'KIND',
  'SOURCE',
  'X-ABLABEL',
  'X-ABADR',
  'CLIENTPIDMAP',
  'LABEL',
  'GENDER',
  'LANG',
  'TZ',
  'GEO',
  'IMPP',
  'MEMBER',
  'RELATED',
  'SORT-STRING',
  'MAILER',
  'CLASS',
  'AGENT',
  'NAME',
  'PROFILE',
])

export function parseVCards(text: string): ParseResult<ContactRecord> {
  const { roots, errors } = parseComponents(text)
  const result: ParseResult<ContactRecord> = { entries: [], failed: errors.map((e) => ({ line: e.line, error: e.error })) }
  roots.forEach((card, index) => {
    try {
      if (card.name !== 'VCARD') throw new Error(`expected BEGIN:VCARD, found BEGIN:${card.name}`)
      if (card.broken) throw new Error(card.broken)
      const photo = cardPhoto(card)
      result.entries.push({ index, line: card.line, record: readCard(card), ...(photo ? { photo } : {}) })
    } catch (err) {
      result.failed.push({ index, line: card.line, error: (err as Error).message })
    }
  })
  return result
}

function readCard(card: Component): ContactRecord {
  const labels = groupLabels(card.properties)
  const record: ContactRecord = { display_name: '', ...contactDefaults() }
  const custom: Record<string, unknown> = {}
  const ranked: { emails: Array<[ContactEmail, number]>; phones: Array<[ContactPhone, number]> } = { emails: [], phones: [] }
  let fn = ''
  const kind = card.properties.find((p) => p.name === 'KIND' || p.name === 'X-ADDRESSBOOKSERVER-KIND')
  if (kind && unescapeText(kind.value).trim().toLowerCase() === 'group') throw new Error('contact groups (KIND:group) are not imported')
  for (const raw of card.properties) {
    const cl = decodeQuotedPrintable(raw)
    const label = cl.group ? labels.get(cl.group) : undefined
    const text = () => unescapeText(cl.value).trim()
    switch (cl.name) {
      case 'FN':
        fn = text()
        break
      case 'N': {
        const [family, given] = splitEscaped(cl.value, ';').map((s) => s.trim())
        record.last_name = family || null
        record.first_name = given || null
        break
      }
      case 'EMAIL':
        if (text()) ranked.emails.push([{ address: text(), label: emailLabel(typeValues(cl), label), primary: false }, prefRank(cl)])
        break
      case 'TEL':
        if (text())
          ranked.phones.push([
            { number: text().replace(/^tel:/i, ''), label: phoneLabel(typeValues(cl), label), primary: false },
            prefRank(cl),
          ])
        break
      case 'ADR':
        record.addresses.push(readAddress(cl, label))
        break
      case 'ORG': {
        const [company, ...units] = splitEscaped(cl.value, ';').map((s) => s.trim())
        record.company = company || null
        if (units.some(Boolean)) custom.department = units.filter(Boolean).join(', ')
        break
      }
      case 'TITLE':
        record.job_title = text() || null
        break
      case 'NOTE':
        record.notes = unescapeText(cl.value) || null
        break
      case 'REV':
        record.updated_at = parseStamp(cl.value)
        break
      case 'X-HEARTH-AVATAR-PATH':
        record.avatar_path = text() || null
        break
      case 'X-HEARTH-SOURCE':
        record.source = text() || null
        break
      case CUSTOM_FIELD_PROPERTY: {
        const [key, value] = readCustomField(cl)
        custom[key] = value
        break
      }
      default:
        if (readDetail(cl, label, record, (key, value) => addField(custom, key, value))) break
        if (EXTRA_PROPERTIES[cl.name]) addField(custom, EXTRA_PROPERTIES[cl.name], text())
        else if (cl.name.startsWith('X-') && !IGNORED.has(cl.name)) addField(custom, cl.name.toLowerCase(), text())
    }
  }
  record.display_name = fn || [record.first_name, record.last_name].filter(Boolean).join(' ') || record.company || ''
  if (!record.display_name) throw new Error('vCard has no FN, N or ORG to name the contact')
  record.emails = withPrimary(ranked.emails)
  record.phones = withPrimary(ranked.phones)
  if (Object.keys(custom).length > 0) record.custom_fields = custom
  if (record.updated_at === undefined) delete record.updated_at
  return record
}

function emailLabel(t: string[], groupLabel?: string): ContactEmail['label'] {
  const all = groupLabel ? [...t, groupLabel.toLowerCase()] : t
  if (all.includes('work')) return 'work'
  if (all.includes('home') || all.includes('personal')) return 'personal'
  return 'other'
}

function phoneLabel(t: string[], groupLabel?: string): ContactPhone['label'] {
  const all = groupLabel ? [...t, groupLabel.toLowerCase()] : t
  if (all.some((v) => v === 'cell' || v === 'mobile' || v === 'iphone')) return 'mobile'
  if (all.includes('work')) return 'work'
  if (all.includes('home')) return 'home'
  return 'other'
}

const ADR_TYPE_NOISE = new Set(['pref', 'postal', 'parcel', 'dom', 'intl'])

function readAddress(cl: ContentLine, groupLabel?: string): ContactAddress {
  const [pobox = '', extended = '', street = '', city = '', state = '', code = '', country = ''] = splitEscaped(cl.value, ';').map((s) =>
    s.trim(),
  )
  const label = typeValues(cl).find((t) => !ADR_TYPE_NOISE.has(t)) ?? groupLabel?.toLowerCase() ?? null
  return {
    street: [street, extended, pobox].filter(Boolean).join('\n') || null,
    city: city || null,
    state: state || null,
    postal_code: code || null,
    country: country || null,
    label,
  }
}

/** The most preferred item (lowest PREF, first on ties) is the one primary; none when nothing is preferred. */
function withPrimary<T extends { primary: boolean }>(ranked: Array<[T, number]>): T[] {
  const best = Math.min(...ranked.map(([, rank]) => rank))
  const winner = Number.isFinite(best) ? ranked.findIndex(([, rank]) => rank === best) : -1
  return ranked.map(([item], i) => ({ ...item, primary: i === winner }))
}
