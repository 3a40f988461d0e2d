import { contentLine, escapeText } from './content-line.js'
import { customFieldLines } from './custom-fields.js'
import { formatStamp } from './stamps.js'
import { formatTime, formatTrigger } from './ics-time.js'
import { formatRRule } from './rrule.js'
import type { EventRecord } from './types.js'

type ExportedEvent = EventRecord & { id?: string }

const PARTSTAT = { accepted: 'ACCEPTED', declined: 'DECLINED', tentative: 'TENTATIVE', pending: 'NEEDS-ACTION' } as const

/** Events → one VCALENDAR (CRLF, folded at 75 octets). Times are written in UTC. */
export function serializeICalendar(events: ExportedEvent[], now: number = Date.now()): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Hearth//Hearth Records//EN', 'CALSCALE:GREGORIAN']
  const stamp = formatStamp(new Date(now).toISOString())
  for (const e of events) lines.push(...vevent(e, stamp))
  lines.push('END:VCALENDAR')
  return `${lines.join('\r\n')}\r\n`
}

function vevent(e: ExportedEvent, stamp: string): string[] {
  const lines = ['BEGIN:VEVENT']
  if (e.id) lines.push(`UID:${e.id}@hearth`)
  lines.push(`DTSTAMP:${stamp}`)
  if (e.created_at) lines.push(`CREATED:${formatStamp(e.created_at)}`)
  if (e.updated_at) lines.push(`LAST-MODIFIED:${formatStamp(e.updated_at)}`)
  const dateParams: Array<[string, string]> = e.all_day ? [['VALUE', 'DATE']] : []
  lines.push(contentLine('DTSTART', dateParams, formatTime(e.start_at, e.all_day)))
  if (e.end_at) lines.push(contentLine('DTEND', dateParams, formatTime(e.end_at, e.all_day)))
  if (e.recurrence) lines.push(`RRULE:${formatRRule(e.recurrence, e.all_day)}`)
  lines.push(contentLine('SUMMARY', [], escapeText(e.title)))
  if (e.description) lines.push(contentLine('DESCRIPTION', [], escapeText(e.description)))
  if (e.location) lines.push(contentLine('LOCATION', [], escapeText(e.location)))
  lines.push(`STATUS:${e.status.toUpperCase()}`)
  lines.push(contentLine('CATEGORIES', [], escapeText(e.calendar_name)))
  lines.push(contentLine('X-HEARTH-CALENDAR', [], escapeText(e.calendar_name)))
  if (e.source) lines.push(contentLine('X-HEARTH-SOURCE', [], escapeText(e.source)))
  for (const a of e.attendees) {
    const params: Array<[string, string]> = a.name ? [['CN', a.name]] : []
    params.push(['PARTSTAT', PARTSTAT[a.status] ?? 'NEEDS-ACTION'])
    lines.push(contentLine('ATTENDEE', params, `mailto:${a.email}`))
  }
  lines.push(...customFieldLines(e.custom_fields))
  for (const r of e.reminders) {
    const email = r.type === 'email'
    lines.push('BEGIN:VALARM', `ACTION:${email ? 'EMAIL' : 'DISPLAY'}`, contentLine('DESCRIPTION', [], escapeText(e.title)))
    if (email) lines.push(contentLine('SUMMARY', [], escapeText(e.title)))
    lines.push(`TRIGGER:${formatTrigger(r.minutes_before)}`, 'END:VALARM')
  }
  lines.push('END:VEVENT')
  return lines
}
