import { createHash } from 'node:crypto'
import { HttpError } from '../../core/plugin-api.js'
import { type Component, parseComponents } from '../../lib/content-line/components.js'
import { escapeText, parseContentLine, splitEscaped, unescapeText } from '../../lib/content-line/lines.js'
import { groupLabels } from '../../lib/vcard/params.js'
import { formatStamp } from '../../lib/content-line/stamps.js'
import { parseDuration } from '../../lib/ical/time.js'
import {
  type ApiRecord,
  type ContactRecord,
  DETAIL_PROPERTIES,
  detailGroups,
  type EventRecord,
  EXTRA_PROPERTIES,
  parseICalendar,
  parseTodos,
  parseVCards,
  serializeICalendar,
  serializeTodos,
  serializeVCard,
  type StoredProperty,
  type TaskRecord,
} from '../records/public.js'

/**
 * DAV objects ↔ records, through the records plugin's vCard and iCalendar
 * readers and writers. What an object carries that Hearth has no field for
 * (UID, PHOTO, ORGANIZER, X-APPLE-..., grouped labels) is kept with the record
 * (records_properties) and written back, so a client never loses data.
 */
export const CARD_TYPE = 'text/vcard; charset=utf-8'
export const CALENDAR_TYPE = 'text/calendar; charset=utf-8'

const sha = (s: string) => createHash('sha256').update(s).digest('base64url').slice(0, 22)

/**
 * An object's ETag: its record's own (the record's version, so an edit through the JSON API or
 * DAV invalidates the other's tag), or one over the series and its overridden occurrences.
 * DAV's precondition checks and writes run in one synchronous call (better-sqlite3, no await
 * between), so no other write can come between them.
 */
export function objectEtag(records: ApiRecord[]): string {
  const tags = records.map((r) => r.etag as string)
  if (tags.length === 1) return tags[0] as string
  return `"${sha(tags.sort().join(','))}"`
}

const bad = (message: string) => new HttpError('VALIDATION_ERROR', message, { field: 'body', constraint: 'format' })

/** The fields a DAV client does not set: the server's own. */
function withoutServerFields<T extends object>(record: T): Record<string, unknown> {
  const { created_at: _c, updated_at: _u, source: _s, ...body } = record as Record<string, unknown>
  return body
}

/** vCard properties the reader maps to fields (or Hearth writes itself); every other line is kept. */
const CARD_MAPPED = new Set([
  'BEGIN',
  'END',
  'VERSION',
  'PRODID',
  'FN',
  'N',
  'EMAIL',
  'TEL',
  'ADR',
  'ORG',
  'TITLE',
  'NOTE',
  'CATEGORIES',
  'REV',
  ...Object.keys(EXTRA_PROPERTIES),
  ...DETAIL_PROPERTIES,
])

export interface ParsedCard {
  body: Record<string, unknown>
  kept: StoredProperty[]
}

export function readCard(text: string): ParsedCard {
  const parsed = parseVCards(text)
  if (parsed.entries.length !== 1 || parsed.failed.length) {
    throw bad(parsed.failed[0]?.error ?? 'the body must hold exactly one vCard')
  }
  const { roots } = parseComponents(text)
  const kept: StoredProperty[] = []
  const properties = roots[0]?.properties ?? []
  // A labelled URL or Apple's anniversary is written from the contact's fields, label and all.
  const written = detailGroups(properties, groupLabels(properties))
  for (const cl of properties) {
    if (cl.group && written.has(cl.group)) continue
    // N beyond family and given names (middle names, prefixes, suffixes): kept to be written back around them.
    if (
      cl.name === 'N' &&
      splitEscaped(cl.value, ';')
        .slice(2)
        .some((part) => part.trim())
    )
      kept.push(['N', [], cl.value])
    // VERSION is kept to answer in the client's version; X- lines also land in custom_fields, and are
    // written back under their own name (with the field's current value) rather than as X-HEARTH-FIELD.
    if (cl.name !== 'VERSION' && (CARD_MAPPED.has(cl.name) || cl.name.startsWith('X-HEARTH-'))) continue
    kept.push([cl.group ? `${cl.group}.${cl.name}` : cl.name, [...cl.params], cl.value])
  }
  return { body: withoutServerFields((parsed.entries[0] as { record: ContactRecord }).record), kept }
}

/**
 * The card of a record: Hearth's fields, then the kept lines: the client's UID instead of Hearth's,
 * and its X- properties with the values custom_fields hold now (a field removed in Hearth drops its line).
 */
export function writeCard(record: ApiRecord, kept: StoredProperty[], photo: Buffer | null = null): string {
  const version = kept.find(([n]) => n === 'VERSION')?.[2].trim() === '3.0' ? '3.0' : '4.0'
  const fields = { ...((record.custom_fields as Record<string, unknown> | null) ?? {}) }
  const extra: string[] = []
  for (const [name, params, value] of kept) {
    if (name === 'VERSION' || name === 'N') continue
    const key = name.toLowerCase()
    if (!name.startsWith('X-') || name.includes('.')) {
      extra.push(propertyLine(name, params, value))
      continue
    }
    // An X- line repeated by the client lands as a list in one field: written back once, value by value.
    if (!(key in fields)) continue
    const current = fields[key]
    const values = Array.isArray(current) ? current : [current]
    for (const v of values) {
      const text = typeof v === 'string' ? v : JSON.stringify(v)
      // Unchanged: the value exactly as the client wrote it (X- values need not follow TEXT escaping).
      extra.push(propertyLine(name, params, text === unescapeText(value).trim() ? value : escapeText(text)))
    }
    delete fields[key]
  }
  const written = { ...record, custom_fields: Object.keys(fields).length ? fields : null, photo }
  const lines = serializeVCard(written as unknown as ContactRecord & { id: string }, version).split('\r\n')
  const hasUid = kept.some(([name]) => name === 'UID')
  const fullName = kept.find(([name]) => name === 'N')?.[2]
  const out = lines
    .filter((l) => !(hasUid && l.startsWith('UID:')) && l !== 'END:VCARD' && l !== '')
    .map((l) => (fullName && l.startsWith('N:') ? withNames(fullName, record) : l))
  out.push(...extra, 'END:VCARD')
  return `${out.join('\r\n')}\r\n`
}

/** The client's N with the record's family and given names in their places (RFC 6350 6.2.2). */
function withNames(original: string, record: ApiRecord): string {
  const parts = original.split(';')
  parts[0] = escapeText(String(record.last_name ?? ''))
  parts[1] = escapeText(String(record.first_name ?? ''))
  return foldLine(`N:${parts.join(';')}`)
}

/** A kept line written back as it came (folded at 75 octets like the rest). */
function propertyLine(name: string, params: StoredProperty[1], value: string): string {
  const text = `${name}${params.map(([k, v]) => `;${k}=${v.map((x) => (/[;:,"]/.test(x) ? `"${x.replace(/"/g, '')}"` : x)).join(',')}`).join('')}:${value}`
  return foldLine(text.replace(/[\r\n]/g, ''))
}

function foldLine(line: string): string {
  const bytes = Buffer.from(line, 'utf8')
  if (bytes.length <= 75) return line
  const parts: string[] = []
  let start = 0
  let limit = 75
  while (start < bytes.length) {
    let end = Math.min(start + limit, bytes.length)
    // Never split a UTF-8 sequence: back up to a lead byte.
    while (end < bytes.length && ((bytes[end] as number) & 0xc0) === 0x80) end--
    parts.push(bytes.subarray(start, end).toString('utf8'))
    start = end
    limit = 74
  }
  return parts.join('\r\n ')
}

export interface ParsedCalendar {
  /** The series (or single event), and the overridden occurrences, each with the lines kept for it. */
  master: { body: Record<string, unknown>; kept: StoredProperty[] }
  overrides: Array<{ body: Record<string, unknown>; kept: StoredProperty[]; occurrence_start: string }>
  uid: string
}

/** One calendar object resource (RFC 4791 4.1): VEVENTs of one UID, the master first or absent. */
export function readCalendar(text: string, zone: string, calendar: string): ParsedCalendar {
  const { roots } = parseComponents(text, 1)
  const components = roots.flatMap((r) => r.components.map((c) => c.name))
  if (components.some((c) => c === 'VTODO' || c === 'VJOURNAL' || c === 'VFREEBUSY'))
    throw new HttpError('UNPROCESSABLE', 'This calendar holds events (VEVENT) only', { constraint: 'supported-calendar-component' })
  const parsed = parseICalendar(text, { zone })
  if (parsed.failed.length) throw bad(parsed.failed[0]?.error ?? 'unreadable iCalendar object')
  if (!parsed.entries.length) throw bad('the body holds no VEVENT')
  const uids = new Set(parsed.entries.map((e) => uidOf(e.properties) ?? e.record.series_uid ?? ''))
  if (uids.size !== 1 || uids.has('')) throw bad('a calendar object holds the VEVENTs of exactly one UID')
  const masters = parsed.entries.filter((e) => !e.record.series_uid)
  if (masters.length !== 1) throw bad('a calendar object needs exactly one VEVENT without RECURRENCE-ID')
  const bodyOf = (r: EventRecord) => {
    const {
      series_uid: _s,
      occurrence_start: _o,
      recurrence_id: _r,
      ...rest
    } = withoutServerFields(r) as EventRecord & Record<string, unknown>
    return { ...rest, calendar_name: calendar }
  }
  const master = masters[0] as (typeof parsed.entries)[number]
  const vevents = roots.flatMap((r) => r.components.filter((c) => c.name === 'VEVENT'))
  const keptOf = (e: (typeof parsed.entries)[number]) => [...(e.properties ?? []), ...detailsOf(vevents[e.index])]
  return {
    uid: [...uids][0] as string,
    master: { body: bodyOf(master.record), kept: keptOf(master) },
    overrides: parsed.entries
      .filter((e) => e.record.series_uid)
      .map((e) => ({
        body: bodyOf(e.record),
        kept: keptOf(e).filter(([n]) => n !== 'UID'),
        occurrence_start: e.record.occurrence_start as string,
      })),
  }
}

const uidOf = (props: StoredProperty[] | undefined) => props?.find(([n]) => n === 'UID')?.[2]

/**
 * What Hearth's fields hold of attendees and alarms but not all of: an attendee's other parameters
 * (ROLE, RSVP, CUTYPE...) by address, and each alarm's other lines (UID, ATTACH, X-WR-ALARMUID...),
 * kept as two private lines and woven back into the written object.
 */
const ATTENDEE_DETAILS = 'X-HEARTH-DAV-ATTENDEES'
const ALARM_DETAILS = 'X-HEARTH-DAV-ALARMS'
/**
 * An alarm whose client wrote its TRIGGER as a date-time (Apple Reminders does): a reminder is
 * minutes before the task, so its TRIGGER is written back as the date-time those minutes give,
 * not as a duration such a client may not read.
 */
const ABSOLUTE_TRIGGER = 'X-HEARTH-ABSOLUTE-TRIGGER'
const absoluteTrigger = (alarm: Component) =>
  alarm.properties.some((p) => p.name === 'TRIGGER' && p.params.get('VALUE')?.[0]?.toUpperCase() === 'DATE-TIME')
const ATTENDEE_MAPPED = new Set(['CN', 'PARTSTAT'])
const ALARM_MAPPED = new Set(['ACTION', 'TRIGGER', 'DESCRIPTION', 'SUMMARY'])

type Params = Array<[string, string[]]>

function detailsOf(vevent: Component | undefined): StoredProperty[] {
  if (!vevent) return []
  const out: StoredProperty[] = []
  const attendees: Record<string, Params> = {}
  for (const a of vevent.properties.filter((p) => p.name === 'ATTENDEE')) {
    const extra = [...a.params].filter(([k]) => !ATTENDEE_MAPPED.has(k))
    if (extra.length) attendees[emailOf(a.value)] = extra
  }
  if (Object.keys(attendees).length) out.push([ATTENDEE_DETAILS, [], escapeText(JSON.stringify(attendees))])
  const alarms = vevent.components
    .filter((c) => c.name === 'VALARM')
    .map((alarm) => [
      ...alarm.properties.filter((p) => !ALARM_MAPPED.has(p.name)).map((p) => [p.name, [...p.params], p.value] as StoredProperty),
      ...(absoluteTrigger(alarm) ? [[ABSOLUTE_TRIGGER, [], ''] as StoredProperty] : []),
    ])
  if (alarms.some((a) => a.length)) out.push([ALARM_DETAILS, [], escapeText(JSON.stringify(alarms))])
  return out
}

const emailOf = (value: string) =>
  unescapeText(value)
    .trim()
    .replace(/^mailto:/i, '')
    .toLowerCase()

export function writeCalendar(series: ApiRecord, overrides: ApiRecord[], kept: ReadonlyMap<string, StoredProperty[]>, now: number): string {
  const records = [series, ...overrides]
  return withDetails(records, kept, (plain) => serializeICalendar(records as unknown as Array<EventRecord & { id: string }>, now, plain))
}

/** The parsed VTODO of a task object: its body, what is kept beside it, its UID and its parent's. */
export interface ParsedTodo {
  body: Record<string, unknown>
  kept: StoredProperty[]
  uid: string
  parentUid?: string
}

/** One task object resource: exactly one VTODO (a task list holds nothing else). */
export function readTodo(text: string, zone: string, list: string): ParsedTodo {
  const { roots } = parseComponents(text, 1)
  const components = roots.flatMap((r) => r.components.map((c) => c.name))
  if (components.some((c) => c === 'VEVENT' || c === 'VJOURNAL' || c === 'VFREEBUSY'))
    throw new HttpError('UNPROCESSABLE', 'This task list holds tasks (VTODO) only', { constraint: 'supported-calendar-component' })
  const parsed = parseTodos(text, { zone })
  if (parsed.failed.length) throw bad(parsed.failed[0]?.error ?? 'unreadable iCalendar object')
  const entry = parsed.entries[0]
  if (!entry || parsed.entries.length !== 1) throw bad('a task object holds exactly one VTODO')
  const uid = uidOf(entry.properties)
  if (!uid) throw bad('the VTODO has no UID')
  const { parent_uid: parentUid, ...record } = withoutServerFields(entry.record) as TaskRecord & Record<string, unknown>
  const vtodo = roots.flatMap((r) => r.components.filter((c) => c.name === 'VTODO'))[0]
  return {
    body: { ...record, list_name: list },
    kept: [...(entry.properties ?? []), ...detailsOf(vtodo)],
    uid,
    ...(typeof parentUid === 'string' ? { parentUid } : {}),
  }
}

/** The task object of a record: Hearth's fields, the kept lines and the alarms' own lines woven back. */
export function writeTodo(task: ApiRecord, kept: StoredProperty[], parentUid: string | undefined, now: number): string {
  const lines = new Map([[task.id, kept]])
  return withDetails([task], lines, (plain) =>
    serializeTodos([task as unknown as TaskRecord & { id: string }], now, plain, () => parentUid),
  )
}

/**
 * Writes records' components (`write`, given the kept lines without the private details) and weaves
 * back what Hearth's fields hold only in part: attendees' other parameters and alarms' other lines.
 */
function withDetails(
  records: ApiRecord[],
  kept: ReadonlyMap<string, StoredProperty[]>,
  write: (plain: ReadonlyMap<string, StoredProperty[]>) => string,
): string {
  const plain = new Map<string, StoredProperty[]>()
  const details = records.map((r) => {
    const lines = kept.get(r.id) ?? []
    plain.set(
      r.id,
      lines.filter(([n]) => n !== ATTENDEE_DETAILS && n !== ALARM_DETAILS),
    )
    const read = <T>(name: string, fallback: T): T => {
      const line = lines.find(([n]) => n === name)
      return line ? (JSON.parse(unescapeText(line[2])) as T) : fallback
    }
    return {
      attendees: read<Record<string, Params>>(ATTENDEE_DETAILS, {}),
      alarms: read<StoredProperty[][]>(ALARM_DETAILS, []),
      reminders: (r.reminders as unknown[]).length,
    }
  })
  const text = write(plain)
  if (details.every((d) => !Object.keys(d.attendees).length && !d.alarms.length)) return text
  // Unfolded, the k-th VEVENT is the k-th record; each line is folded again as it is written.
  const out: string[] = []
  let event = -1
  let alarm = -1
  for (const { text: line } of unfoldLines(text)) {
    if (line === 'BEGIN:VEVENT' || line === 'BEGIN:VTODO') {
      event++
      alarm = -1
    }
    const d = details[event]
    if (d && line.startsWith('ATTENDEE')) {
      const cl = parseContentLine(0, line)
      const extra = d.attendees[emailOf(cl.value)]
      out.push(
        extra ? propertyLine('ATTENDEE', [...[...cl.params].filter(([k]) => ATTENDEE_MAPPED.has(k)), ...extra], cl.value) : foldLine(line),
      )
      continue
    }
    const own = d && d.alarms.length === d.reminders ? d.alarms[alarm] : undefined
    if (own && line.startsWith('TRIGGER') && own.some(([n]) => n === ABSOLUTE_TRIGGER)) {
      out.push(absoluteTriggerLine(line, records[event] as ApiRecord) ?? foldLine(line))
      continue
    }
    out.push(foldLine(line))
    if (d && line === 'BEGIN:VALARM') {
      alarm++
      // The alarms' own lines apply while the reminders are the ones the client wrote (same count).
      if (d.alarms.length === d.reminders)
        for (const [name, params, value] of d.alarms[alarm] ?? [])
          if (name !== ABSOLUTE_TRIGGER) out.push(propertyLine(name, params, value))
    }
  }
  return `${out.join('\r\n')}\r\n`
}

/** `TRIGGER;RELATED=END:-PT1H` of a task due at 09:00Z → `TRIGGER;VALUE=DATE-TIME:…T080000Z` (null without the time it counts from). */
function absoluteTriggerLine(line: string, record: ApiRecord): string | null {
  const cl = parseContentLine(0, line)
  const toEnd = cl.params.get('RELATED')?.[0]?.toUpperCase() === 'END'
  const task = 'list_name' in record
  const base = toEnd ? (task ? record.due_at : record.end_at) : (record.start_at ?? (task ? record.due_at : null))
  if (typeof base !== 'string') return null
  // Reminders count whole minutes: tasks.org's due times carry one second (its "has a time" mark), the alarm none.
  const at = Math.round((Date.parse(base) + parseDuration(cl.value.trim()) * 1000) / 60_000) * 60_000
  return Number.isFinite(at) ? `TRIGGER;VALUE=DATE-TIME:${formatStamp(new Date(at).toISOString())}` : null
}

function unfoldLines(text: string): Array<{ text: string }> {
  return text
    .split('\r\n')
    .reduce<string[]>((acc, l) => {
      if (l.startsWith(' ') && acc.length) acc[acc.length - 1] += l.slice(1)
      else if (l) acc.push(l)
      return acc
    }, [])
    .map((t) => ({ text: t }))
}

/** A line of a vCard or iCalendar text, for the queries' text matches. */
export function contentLines(text: string) {
  return parseComponents(text).roots.flatMap((r) => r.properties)
}
