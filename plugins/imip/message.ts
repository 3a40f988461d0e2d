import { contentLine } from '../../lib/content-line/lines.js'
import { serializeICalendar, type StoredProperty } from '../records/public.js'

/**
 * One iMIP message (RFC 6047): the event as an iCalendar object with its METHOD (REQUEST for an
 * invitation or an update, CANCEL when it is off), the organizer, the attendees with their
 * PARTSTAT, its UID and SEQUENCE; and a few lines of plain text for mail readers without a calendar.
 */
export type Method = 'REQUEST' | 'CANCEL'

export interface Organizer {
  email: string
  name: string | null
  /**
   * The member who made the change when it is not the organizer (one writing a calendar the
   * organizer shares with them): ORGANIZER;SENT-BY (RFC 5545 3.2.18) and the text name them.
   */
  sentBy?: { email: string; name: string | null }
}

/** Header text from a member's words: no line breaks or control characters, bounded. */
export const headerText = (text: string, max = 120): string => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, max)

export function calendarOf(
  event: Record<string, unknown>,
  method: Method,
  organizer: Organizer,
  uid: string,
  sequence: number,
  now: number,
): string {
  const record = { ...event, ...(method === 'CANCEL' ? { status: 'cancelled' } : {}), recurrence_id: null }
  const kept = new Map<string, StoredProperty[]>([[String(event.id), [['UID', [], uid]]]])
  const text = serializeICalendar([record as never], now, kept)
  const params: Array<[string, string]> = organizer.name ? [['CN', headerText(organizer.name)]] : []
  if (organizer.sentBy) params.push(['SENT-BY', `mailto:${organizer.sentBy.email}`])
  const added = [contentLine('ORGANIZER', params, `mailto:${organizer.email}`), contentLine('SEQUENCE', [], String(sequence))].map(
    (line) => `${line}\r\n`,
  )
  return text
    .replace('CALSCALE:GREGORIAN\r\n', `CALSCALE:GREGORIAN\r\nMETHOD:${method}\r\n`)
    .replace('END:VEVENT\r\n', `${added.join('')}END:VEVENT\r\n`)
}

export function textOf(event: Record<string, unknown>, method: Method, organizer: Organizer): { subject: string; text: string } {
  const title = headerText(String(event.title ?? ''))
  const named = (p: { email: string; name: string | null }) => (p.name ? `${headerText(p.name)} <${p.email}>` : p.email)
  const who = organizer.sentBy ? `${named(organizer.sentBy)}, for ${named(organizer)},` : named(organizer)
  const when = `${String(event.start_at)}${event.end_at ? ` to ${String(event.end_at)}` : ''}`
  if (method === 'CANCEL') return { subject: `Cancelled: ${title}`, text: `${who} cancelled "${title}" (${when}).\n` }
  const where = event.location ? `\nWhere: ${String(event.location).slice(0, 1000)}` : ''
  return {
    subject: `Invitation: ${title}`,
    text: `${who} invites you to "${title}".\nWhen: ${when}${where}\n\nYour calendar application can answer this invitation.\n`,
  }
}
