import { type ContentLine, contentLine, escapeText, splitEscaped, unescapeText } from '../../../lib/content-line/lines.js'
import { formatCanonicalDate, formatVCardDate, parseCanonicalDate, parseVCardDate } from '../../../lib/vcard/dates.js'
import { typeValues, type VCardVersion } from '../../../lib/vcard/params.js'
import type { ContactRecord, ContactUrl } from './types.js'

/**
 * A contact's personal details in vCard: BDAY and ANNIVERSARY (4.0) or X-ANNIVERSARY and Apple's
 * grouped `X-ABDATE` labelled `_$!<Anniversary>!$_` (3.0), NICKNAME, URL with its label (a TYPE, or
 * Apple's grouped `X-ABLabel`), CATEGORIES as groups, and Hearth's own tags (X-HEARTH-TAGS).
 */

/** The properties these functions read; the vCard reader hands them here. */
export const DETAIL_PROPERTIES = new Set(['BDAY', 'ANNIVERSARY', 'X-ANNIVERSARY', 'NICKNAME', 'URL', 'CATEGORIES', 'X-HEARTH-TAGS'])

/** The group an `X-ABDATE` shares with this label is the anniversary (Apple's label, without its `_$!<…>!$_`). */
const APPLE_ANNIVERSARY = 'anniversary'

const URL_TYPE_NOISE = new Set(['pref', 'internet', 'x-internet'])
/** Labels vCard names as TYPE values (RFC 6350 URL: work, home; read back in lower case); other labels go in Apple's grouped X-ABLabel, as written. */
const TYPED_LABELS = new Set(['home', 'work'])

type Details = Pick<ContactRecord, 'birthday' | 'anniversary' | 'nickname' | 'urls' | 'groups' | 'tags'>

/**
 * Reads one detail line into the record; false when the line is not one (the reader then goes on).
 * `label` is the Apple label of the line's group; `keep` takes a value that fits no field
 * (a BDAY in words), so it stays with the contact's custom fields as before.
 */
export function readDetail(
  cl: ContentLine,
  label: string | undefined,
  record: Details,
  keep: (key: string, value: string) => void,
): boolean {
  const text = () => unescapeText(cl.value).trim()
  switch (cl.name) {
    case 'BDAY':
      readDate(cl, 'birthday', record, keep)
      return true
    case 'ANNIVERSARY':
    case 'X-ANNIVERSARY':
      readDate(cl, 'anniversary', record, keep)
      return true
    case 'X-ABDATE': {
      if (label?.toLowerCase() !== APPLE_ANNIVERSARY) return false
      if (!record.anniversary) {
        readDate(cl, 'anniversary', record, keep)
        return true
      }
      // The same date as X-ANNIVERSARY (3.0 cards carry both): one anniversary; another date stays as written.
      const date = parseVCardDate(text(), cl.params.get('X-APPLE-OMIT-YEAR')?.[0])
      return date !== null && formatCanonicalDate(date) === record.anniversary
    }
    case 'NICKNAME':
      // NICKNAME is a list (RFC 6350 6.2.3): the first is the field, the others stay as written.
      if (!record.nickname)
        record.nickname =
          splitEscaped(cl.value, ',')
            .map((s) => s.trim())
            .find(Boolean) ?? null
      return true
    case 'URL':
      if (text()) record.urls.push({ url: text(), label: urlLabel(cl, label) })
      return true
    case 'CATEGORIES':
      addNames(record.groups, cl.value)
      return true
    case 'X-HEARTH-TAGS':
      addNames(record.tags, cl.value)
      return true
    default:
      return false
  }
}

function readDate(cl: ContentLine, key: 'birthday' | 'anniversary', record: Details, keep: (key: string, value: string) => void): void {
  const value = unescapeText(cl.value).trim()
  const date = parseVCardDate(value, cl.params.get('X-APPLE-OMIT-YEAR')?.[0])
  if (date && !record[key]) record[key] = formatCanonicalDate(date)
  else if (!date && value) keep(key, value)
}

function urlLabel(cl: ContentLine, groupLabel: string | undefined): string | null {
  const type = typeValues(cl).find((t) => !URL_TYPE_NOISE.has(t))
  return (type ?? groupLabel ?? null) || null
}

function addNames(into: string[], value: string): void {
  for (const name of splitEscaped(value, ',').map((s) => s.trim())) if (name && !into.includes(name)) into.push(name)
}

/**
 * Apple's groups (`itemN.`) whose lines these functions read and write themselves: a URL with its
 * label, the anniversary's X-ABDATE with its label. Whoever keeps a card's other lines leaves these out.
 */
export function detailGroups(properties: ContentLine[], labels: ReadonlyMap<string, string>): Set<string> {
  const groups = new Set<string>()
  for (const cl of properties) {
    if (!cl.group) continue
    if (cl.name === 'URL' || (cl.name === 'X-ABDATE' && labels.get(cl.group)?.toLowerCase() === APPLE_ANNIVERSARY)) groups.add(cl.group)
  }
  return groups
}

/** The detail lines of a contact, in the version's forms. */
export function detailLines(c: Partial<Details>, version: VCardVersion): string[] {
  const lines: string[] = []
  if (c.nickname) lines.push(contentLine('NICKNAME', [], escapeText(c.nickname)))
  const bday = dateLine('BDAY', c.birthday, version)
  if (bday) lines.push(bday)
  if (c.anniversary) {
    // 3.0 has no ANNIVERSARY: Apple's grouped X-ABDATE is what iOS and macOS show; X-ANNIVERSARY what Evolution and others read.
    if (version === '4.0') lines.push(dateLine('ANNIVERSARY', c.anniversary, version) as string)
    else {
      lines.push(dateLine('X-ANNIVERSARY', c.anniversary, version) as string)
      lines.push(dateLine('hearth-anniversary.X-ABDATE', c.anniversary, version) as string)
      lines.push(contentLine('hearth-anniversary.X-ABLabel', [], '_$!<Anniversary>!$_'))
    }
  }
  lines.push(...urlLines(c.urls ?? []))
  if (c.groups?.length) lines.push(contentLine('CATEGORIES', [], c.groups.map(escapeText).join(',')))
  if (c.tags?.length) lines.push(contentLine('X-HEARTH-TAGS', [], c.tags.map(escapeText).join(',')))
  return lines
}

function dateLine(name: string, value: string | null | undefined, version: VCardVersion): string | null {
  const date = value ? parseCanonicalDate(value) : null
  if (!date) return null
  const { value: text, params } = formatVCardDate(date, version)
  return contentLine(name, params, text)
}

/** URLs: a home or work label as TYPE, any other label in Apple's grouped form, which other clients show too. */
function urlLines(urls: ContactUrl[]): string[] {
  const lines: string[] = []
  urls.forEach((u, i) => {
    const label = u.label?.trim() ?? ''
    if (!label || TYPED_LABELS.has(label)) {
      lines.push(contentLine('URL', label ? [['TYPE', label]] : [], u.url))
      return
    }
    lines.push(contentLine(`hearth-url${i + 1}.URL`, [], u.url))
    lines.push(contentLine(`hearth-url${i + 1}.X-ABLabel`, [], escapeText(label)))
  })
  return lines
}
