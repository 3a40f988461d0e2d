import { contentLine, escapeText } from '../../../lib/content-line/lines.js'
import { formatStamp } from '../../../lib/content-line/stamps.js'
import { formatRRule } from '../../../lib/ical/rrule.js'
import { formatTime, formatTrigger } from '../../../lib/ical/time.js'
import { vtimezone } from '../../../lib/ical/vtimezone.js'
import { fromWall, toWall } from '../../../lib/timezone/wall-clock.js'
import { customFieldLines } from './custom-fields.js'
import { ALARM_ACTIONS } from './ics-parse.js'
import type { StoredProperty } from '../engine/properties.js'
import type { EventRecord } from './types.js'

type ExportedEvent = EventRecord & { id?: string }

/** Years of observances one VTIMEZONE lists at most. */
const MAX_VTIMEZONE_YEARS = 40

const PARTSTAT = { accepted: 'ACCEPTED', declined: 'DECLINED', tentative: 'TENTATIVE', pending: 'NEEDS-ACTION' } as const

/** Where a calendar's events come from when it is written a piece at a time (an export). */
export interface EventSource {
  /** Every event, in batches, oldest first; walked twice (the zones the events use come first in the file). */
  batches(): Iterable<ExportedEvent[]>
  /** The format lines imports kept for these events (id → lines). */
  properties(ids: readonly string[]): ReadonlyMap<string, StoredProperty[]>
  /** An override's series that is not in the override's batch; undefined when it is gone. */
  series(id: string): ExportedEvent | undefined
}

/**
 * Events → one VCALENDAR (CRLF, folded at 75 octets). A timed event in a zone other than UTC
 * is written in its wall-clock time with TZID, and the file carries a VTIMEZONE for each zone
 * used (covering the years its events span, and ten more for open series); all-day events are DATEs.
 */
export function serializeICalendar(
  events: ExportedEvent[],
  now: number = Date.now(),
  properties: ReadonlyMap<string, StoredProperty[]> = new Map(),
): string {
  const byId = new Map(events.map((e) => [e.id, e]))
  return [...icalendarChunks({ batches: () => [events], properties: () => properties, series: (id) => byId.get(id) }, now)].join('')
}

/**
 * The same VCALENDAR in pieces (the head with its VTIMEZONEs, then one piece per event), each made
 * when it is asked for: writing it holds one batch of events, however many there are.
 */
export function* icalendarChunks(source: EventSource, now: number = Date.now()): Generator<string> {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Hearth//Hearth Records//EN', 'CALSCALE:GREGORIAN']
  const stamp = formatStamp(new Date(now).toISOString())
  const years = new Map<string, [number, number]>()
  for (const batch of source.batches()) {
    for (const e of batch) {
      const zone = zoneOf(e)
      if (!zone) continue
      const year = new Date(e.start_at).getUTCFullYear()
      const [lo, hi] = years.get(zone) ?? [year, year]
      years.set(zone, [Math.min(lo, year), Math.max(hi, e.recurrence ? year + 10 : year)])
    }
    // An empty piece per batch: whoever streams the pieces may give the event loop back between them.
    yield ''
  }
  lines.push(...vtimezones(years))
  yield `${lines.join('\r\n')}\r\n`
  for (const batch of source.batches()) {
    const byId = new Map(batch.map((e) => [e.id, e]))
    const seriesOf = (e: ExportedEvent) => (e.recurrence_id ? (byId.get(e.recurrence_id) ?? source.series(e.recurrence_id)) : undefined)
    const ids = batch.flatMap((e) => [e.id, e.recurrence_id]).filter((id): id is string => typeof id === 'string')
    const properties = source.properties([...new Set(ids)])
    const kept = (e: ExportedEvent | undefined) => (e?.id && properties.get(e.id)) || []
    const uidOf = (e: ExportedEvent) => kept(e).find(([name]) => name === 'UID')?.[2] ?? `${e.id}@hearth`
    for (const e of batch) {
      // An override shares its series' UID and names the start it replaces (RFC 5545 3.8.4.4).
      const series = seriesOf(e)
      const uid = e.recurrence_id ? (series ? uidOf(series) : `${e.recurrence_id}@hearth`) : (e.series_uid ?? (e.id ? uidOf(e) : null))
      yield `${vevent(e, stamp, kept(e), uid, series).join('\r\n')}\r\n`
    }
  }
  yield 'END:VCALENDAR\r\n'
}

/** One VTIMEZONE per zone (sorted), covering the years given for it (zone → [first, last]). */
export function vtimezones(years: ReadonlyMap<string, [number, number]>): string[] {
  const lines: string[] = []
  for (const [zone, [from, to]] of [...years].sort(([a], [b]) => a.localeCompare(b))) {
    // Observances are scanned day by day: a bounded span, whatever years the records carry (1970-2100, at most 40 years).
    const last = Math.min(Math.max(to, 1970), 2100)
    lines.push(...vtimezone(zone, Math.max(from - 1, 1970, last - MAX_VTIMEZONE_YEARS), last))
  }
  return lines
}

/** The zone a timed event is written in with TZID; null for UTC and all-day events. */
const zoneOf = (e: ExportedEvent): string | null => (e.all_day || !e.timezone || e.timezone === 'UTC' ? null : e.timezone)

/** One EXDATE in DTSTART's value type: a DATE, a TZID wall-clock time, or UTC (`e.start_at`: the series' anchor). */
export function exdateLine(exdate: string, e: Pick<ExportedEvent, 'all_day' | 'start_at' | 'timezone'>, zone: string | null): string {
  if (e.all_day) return contentLine('EXDATE', [['VALUE', 'DATE']], exdate.slice(0, 10).replace(/-/g, ''))
  // A bare day excludes that day's occurrence: at the series' time of day.
  const iso = exdate.length === 10 ? sameTimeOn(exdate, e.start_at, e.timezone ?? 'UTC') : new Date(exdate).toISOString()
  return contentLine('EXDATE', zone ? [['TZID', zone]] : [], formatTime(iso, false, zone))
}

function sameTimeOn(day: string, startIso: string, zone: string): string {
  const time = toWall(Date.parse(startIso), zone).toISOString().slice(10)
  return new Date(fromWall(new Date(`${day}${time}`), zone)).toISOString()
}

function vevent(e: ExportedEvent, stamp: string, kept: StoredProperty[], uid: string | null, series?: ExportedEvent): string[] {
  const lines = ['BEGIN:VEVENT']
  // The UID the event came with stays its UID: the client that wrote it keeps recognising it.
  if (uid) lines.push(contentLine('UID', [], uid))
  if ((e.recurrence_id || e.series_uid) && e.occurrence_start) {
    const allDay = series?.all_day ?? e.all_day
    const zone = series ? zoneOf(series) : zoneOf(e)
    const params: Array<[string, string]> = allDay ? [['VALUE', 'DATE']] : zone ? [['TZID', zone]] : []
    lines.push(contentLine('RECURRENCE-ID', params, formatTime(e.occurrence_start, allDay, zone)))
  }
  lines.push(`DTSTAMP:${stamp}`)
  if (e.created_at) lines.push(`CREATED:${formatStamp(e.created_at)}`)
  if (e.updated_at) lines.push(`LAST-MODIFIED:${formatStamp(e.updated_at)}`)
  const zone = zoneOf(e)
  const dateParams: Array<[string, string]> = e.all_day ? [['VALUE', 'DATE']] : zone ? [['TZID', zone]] : []
  lines.push(contentLine('DTSTART', dateParams, formatTime(e.start_at, e.all_day, zone)))
  if (e.end_at) lines.push(contentLine('DTEND', dateParams, formatTime(e.end_at, e.all_day, zone)))
  if (e.recurrence) {
    lines.push(`RRULE:${formatRRule(e.recurrence, e.all_day, e.timezone ?? 'UTC')}`)
    for (const ex of e.recurrence.exdates ?? []) lines.push(exdateLine(ex, e, zone))
  }
  lines.push(contentLine('SUMMARY', [], escapeText(e.title)))
  if (e.description) lines.push(contentLine('DESCRIPTION', [], escapeText(e.description)))
  if (e.location) lines.push(contentLine('LOCATION', [], escapeText(e.location)))
  lines.push(`STATUS:${e.status.toUpperCase()}`)
  lines.push(contentLine('CATEGORIES', [], escapeText(e.calendar_name)))
  lines.push(contentLine('X-HEARTH-CALENDAR', [], escapeText(e.calendar_name)))
  if (e.source) lines.push(contentLine('X-HEARTH-SOURCE', [], escapeText(e.source)))
  if (e.all_day && e.timezone) lines.push(contentLine('X-HEARTH-TIMEZONE', [], escapeText(e.timezone)))
  for (const a of e.attendees) {
    const params: Array<[string, string]> = a.name ? [['CN', a.name]] : []
    params.push(['PARTSTAT', PARTSTAT[a.status] ?? 'NEEDS-ACTION'])
    lines.push(contentLine('ATTENDEE', params, `mailto:${a.email}`))
  }
  lines.push(...customFieldLines(e.custom_fields))
  for (const [name, params, value] of kept) if (name !== 'UID' && name !== ALARM_ACTIONS) lines.push(contentLine(name, params, value))
  lines.push(...alarmLines(e.title, e.reminders, kept))
  lines.push('END:VEVENT')
  return lines
}

/**
 * VALARMs of reminders (DISPLAY/AUDIO ⇄ notification, EMAIL ⇄ email). Actions an import kept
 * (AUDIO...) apply while the reminders are still the ones imported. `trigger`: the TRIGGER's parameters.
 */
export function alarmLines(
  title: string,
  reminders: ReadonlyArray<{ type: string; minutes_before: number }>,
  kept: readonly StoredProperty[],
  trigger: Array<[string, string]> = [],
): string[] {
  const lines: string[] = []
  const actions = kept.find(([name]) => name === ALARM_ACTIONS)?.[2].split(',') ?? []
  reminders.forEach((r, i) => {
    const email = r.type === 'email'
    const imported = !email && actions.length === reminders.length && /^[A-Z][A-Z0-9-]*$/.test(actions[i] ?? '') ? actions[i] : null
    const action = email ? 'EMAIL' : (imported ?? 'DISPLAY')
    lines.push('BEGIN:VALARM', `ACTION:${action}`)
    if (action !== 'AUDIO') lines.push(contentLine('DESCRIPTION', [], escapeText(title)))
    if (email) lines.push(contentLine('SUMMARY', [], escapeText(title)))
    lines.push(contentLine('TRIGGER', trigger, formatTrigger(r.minutes_before)), 'END:VALARM')
  })
  return lines
}
