import { type Component, parseComponents } from '../../../lib/content-line/components.js'
import { type ContentLine, splitEscaped, unescapeText } from '../../../lib/content-line/lines.js'
import { parseStamp } from '../../../lib/content-line/stamps.js'
import type { Recurrence } from '../../../lib/ical/recurrence.js'
import { parseRRule } from '../../../lib/ical/rrule.js'
import { parseDuration, parseTime } from '../../../lib/ical/time.js'
import { isZone } from '../../../lib/timezone/wall-clock.js'
import { CUSTOM_FIELD_PROPERTY, readCustomField } from './custom-fields.js'
import type { StoredProperty } from '../engine/properties.js'
import type { EventRecord, ParseResult } from './types.js'

/**
 * iCalendar → events: every VEVENT of every VCALENDAR, as Google Calendar,
 * Thunderbird and Apple export them. The calendar name comes from
 * X-HEARTH-CALENDAR, else the first CATEGORIES value, else the file's
 * X-WR-CALNAME. Modified occurrences (RECURRENCE-ID) are reported as failed
 * rather than imported as duplicates.
 */
const STATUS: Record<string, EventRecord['status']> = { CONFIRMED: 'confirmed', TENTATIVE: 'tentative', CANCELLED: 'cancelled' }
const PARTSTAT: Record<string, EventRecord['attendees'][number]['status']> = {
  ACCEPTED: 'accepted',
  DECLINED: 'declined',
  TENTATIVE: 'tentative',
  'NEEDS-ACTION': 'pending',
  DELEGATED: 'pending',
}

export interface ICalendarOptions {
  /** The importing instance's IANA zone: floating times are wall-clock times there. */
  zone?: string
}

export function parseICalendar(text: string, options: ICalendarOptions = {}): ParseResult<EventRecord> {
  const zone = options.zone ?? 'UTC'
  return parseEntries(text, 'VEVENT', (vevent, calName) => ({
    record: readEvent(vevent, zone, calName),
    properties: [...unmapped(vevent), ...alarmActions(vevent)],
  }))
}

/**
 * Every component `name` (VEVENT, VTODO) of every VCALENDAR, read by `read` (given the file's
 * X-WR-CALNAME); an entry that throws is reported where it is, the others kept.
 */
export function parseEntries<T>(
  text: string,
  name: string,
  read: (component: Component, calName: string | undefined) => { record: T; properties: StoredProperty[] },
): ParseResult<T> {
  const { roots, errors } = parseComponents(text, 1)
  const result: ParseResult<T> = { entries: [], failed: errors.map((e) => ({ line: e.line, error: e.error })) }
  let index = 0
  for (const root of roots) {
    if (root.name !== 'VCALENDAR') {
      result.failed.push({ line: root.line, error: `expected BEGIN:VCALENDAR, found BEGIN:${root.name}` })
      continue
    }
    const calName = root.properties.find((p) => p.name === 'X-WR-CALNAME')
    for (const component of root.components.filter((c) => c.name === name)) {
      const at = { index: index++, line: component.line }
      try {
        if (component.broken) throw new Error(component.broken)
        const { record, properties } = read(component, calName ? unescapeText(calName.value).trim() : undefined)
        result.entries.push(properties.length ? { ...at, record, properties } : { ...at, record })
      } catch (err) {
        result.failed.push({ ...at, error: (err as Error).message })
      }
    }
  }
  return result
}

function readEvent(vevent: Component, floatingZone: string, fileCalendar?: string): EventRecord {
  const prop = (name: string) => vevent.properties.find((p) => p.name === name)
  const text = (name: string) => {
    const cl = prop(name)
    return cl ? unescapeText(cl.value) : null
  }
  const dtstart = prop('DTSTART')
  if (!dtstart) throw new Error('VEVENT has no DTSTART')
  const start = parseTime(dtstart, floatingZone)
  // RFC 5545 3.3.10: a series runs in its DTSTART's zone (UTC for a Z time, the local zone for a floating one).
  // An all-day event has no zone on its DATE values: Hearth's own export names it in X-HEARTH-TIMEZONE.
  const named = text('X-HEARTH-TIMEZONE')?.trim()
  const timezone = start.zone ?? (start.date && named && isZone(named) ? named : floatingZone)
  const dtend = prop('DTEND')
  const duration = prop('DURATION')
  let end_at: string | null = null
  if (dtend) end_at = parseTime(dtend, timezone).iso
  else if (duration) end_at = new Date(Date.parse(start.iso) + parseDuration(duration.value) * 1000).toISOString()

  const categories = vevent.properties.filter((p) => p.name === 'CATEGORIES').flatMap((p) => splitEscaped(p.value, ','))
  const statusText = text('STATUS')?.trim().toUpperCase()
  const rrule = prop('RRULE')
  const custom: Record<string, unknown> = {}
  for (const cl of vevent.properties.filter((p) => p.name === CUSTOM_FIELD_PROPERTY)) {
    const [key, value] = readCustomField(cl)
    custom[key] = value
  }
  const record: EventRecord = {
    title: text('SUMMARY')?.trim() || 'Untitled event',
    description: text('DESCRIPTION') || null,
    location: text('LOCATION')?.trim() || null,
    start_at: start.iso,
    end_at,
    all_day: start.date,
    recurrence: rrule ? withExdates(parseRRule(rrule.value, rrule.line), vevent, timezone) : null,
    status: (statusText && STATUS[statusText]) || 'confirmed',
    calendar_name: text('X-HEARTH-CALENDAR')?.trim() || categories[0]?.trim() || fileCalendar || 'default',
    timezone,
    reminders: vevent.components.filter((c) => c.name === 'VALARM').map((alarm) => readAlarm(alarm, start.iso, end_at)),
    attendees: vevent.properties.filter((p) => p.name === 'ATTENDEE').map(readAttendee),
    custom_fields: Object.keys(custom).length > 0 ? custom : null,
  }
  // An overridden occurrence: it names its series by UID and the start it replaces (RFC 5545 3.8.4.4).
  const rid = prop('RECURRENCE-ID')
  if (rid) {
    if (rid.params.get('RANGE')?.[0]?.toUpperCase() === 'THISANDFUTURE')
      throw new Error('RECURRENCE-ID;RANGE=THISANDFUTURE is not supported')
    const uid = text('UID')?.trim()
    if (!uid) throw new Error('a modified occurrence (RECURRENCE-ID) without UID names no series')
    record.recurrence = null
    record.series_uid = uid
    record.occurrence_start = parseTime(rid, timezone).iso
  }
  const source = text('X-HEARTH-SOURCE')?.trim()
  if (source) record.source = source
  const stampOf = (name: string) => {
    const cl = prop(name)
    return cl ? parseStamp(cl.value) : undefined
  }
  const created = stampOf('CREATED')
  const modified = stampOf('LAST-MODIFIED')
  if (created) record.created_at = created
  if (modified) record.updated_at = modified
  return record
}

/** The VEVENT properties Hearth reads into fields (or writes itself); the others are kept as they are. */
const MAPPED = new Set([
  'DTSTART',
  'DTEND',
  'DURATION',
  'RRULE',
  'EXDATE',
  'SUMMARY',
  'DESCRIPTION',
  'LOCATION',
  'STATUS',
  'CATEGORIES',
  'ATTENDEE',
  'DTSTAMP',
  'CREATED',
  'LAST-MODIFIED',
  'RECURRENCE-ID',
  CUSTOM_FIELD_PROPERTY,
])

/** Properties with no Hearth field (UID, ORGANIZER, TRANSP, SEQUENCE, X-APPLE-...), as the file wrote them. */
function unmapped(vevent: Component): StoredProperty[] {
  return vevent.properties
    .filter((p) => !MAPPED.has(p.name) && !p.name.startsWith('X-HEARTH-') && p.name !== 'BEGIN' && p.name !== 'END')
    .map((p) => [p.name, [...p.params], p.value] as StoredProperty)
}

/**
 * The alarms' actions when one is neither DISPLAY nor EMAIL (AUDIO, PROCEDURE...): reminders hold
 * notification or email only (docs/api.md), so the actions are kept, in order, for the export.
 */
export const ALARM_ACTIONS = 'X-HEARTH-ALARM-ACTIONS'
export function alarmActions(vevent: Component): StoredProperty[] {
  const actions = vevent.components
    .filter((c) => c.name === 'VALARM')
    .map(
      (a) =>
        a.properties
          .find((p) => p.name === 'ACTION')
          ?.value.trim()
          .toUpperCase() || 'DISPLAY',
    )
  return actions.some((a) => a !== 'DISPLAY' && a !== 'EMAIL') ? [[ALARM_ACTIONS, [], actions.join(',')]] : []
}

/** EXDATE lines (each a comma-separated list, with its own TZID or VALUE=DATE) → `exdates`. */
export function withExdates(rule: Recurrence, vevent: Component, zone: string): Recurrence {
  const exdates: string[] = []
  for (const cl of vevent.properties.filter((p) => p.name === 'EXDATE')) {
    for (const value of cl.value.split(',')) {
      const t = parseTime({ ...cl, value }, zone)
      exdates.push(t.date ? t.iso.slice(0, 10) : t.iso)
    }
  }
  return exdates.length ? { ...rule, exdates } : rule
}

function readAlarm(alarm: Component, startIso: string, endIso: string | null): EventRecord['reminders'][number] {
  const trigger = alarm.properties.find((p) => p.name === 'TRIGGER')
  if (!trigger) throw new Error(`line ${alarm.line}: VALARM has no TRIGGER`)
  const action = alarm.properties
    .find((p) => p.name === 'ACTION')
    ?.value.trim()
    .toUpperCase()
  const type = action === 'EMAIL' ? 'email' : 'notification'
  const start = Date.parse(startIso)
  let fireAt: number
  if (trigger.params.get('VALUE')?.[0]?.toUpperCase() === 'DATE-TIME') {
    fireAt = Date.parse(parseTime(trigger).iso)
  } else {
    const relatedToEnd = trigger.params.get('RELATED')?.[0]?.toUpperCase() === 'END' && endIso
    const base = relatedToEnd ? Date.parse(endIso) : start
    try {
      fireAt = base + parseDuration(trigger.value) * 1000
    } catch (err) {
      throw new Error(`line ${trigger.line}: ${(err as Error).message}`)
    }
  }
  return { type, minutes_before: Math.round((start - fireAt) / 60_000) }
}

function readAttendee(cl: ContentLine): EventRecord['attendees'][number] {
  const email = unescapeText(cl.value)
    .trim()
    .replace(/^mailto:/i, '')
  const partstat = cl.params.get('PARTSTAT')?.[0]?.toUpperCase()
  return { email, name: cl.params.get('CN')?.[0] || null, status: (partstat && PARTSTAT[partstat]) || 'pending' }
}
