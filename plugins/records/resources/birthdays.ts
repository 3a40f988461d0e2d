import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { HttpError } from '../../../core/plugin-api.js'
import { occurrences, type Recurrence } from '../../../lib/ical/recurrence.js'
import { parseCanonicalDate } from '../../../lib/vcard/dates.js'
import { dropEmpty, MAX_EXPANDED, type Page } from '../engine/list.js'
import type { ApiRecord, ListQuery, ResourceDefinition } from '../engine/types.js'
import { invalidQuery } from '../engine/validate.js'
import type { RecordAccess } from '../sharing/access.js'
import { queryWindow } from './event-window.js'

/**
 * The birthdays calendar: read-only, made from the contacts the caller may read (their own address
 * book and those shared with them). Each contact's birthday, and its anniversary, is a yearly
 * all-day event; nothing is stored: the events follow the contacts as they change.
 */
export const BIRTHDAYS = 'birthdays'

export type Occasion = 'birthday' | 'anniversary'

/** The year a date without one starts repeating from (a leap year, so Feb 29 has its first day). */
const YEARLESS_START = 1972

/** What an occasion's event is made from: a contact as the API answers it (or as the list reads it). */
export interface DatedContact {
  id: string
  owner_id?: unknown
  display_name?: unknown
  birthday?: unknown
  anniversary?: unknown
  etag?: unknown
  created_at?: unknown
  updated_at?: unknown
}

/** The id of a contact's occasion: a UUID made from both, the same every time it is asked for. */
export function occasionId(contactId: string, occasion: Occasion): string {
  const h = createHash('sha256').update(`${contactId}/${occasion}`).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((Number.parseInt(h[16] as string, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`
}

export const OCCASIONS: readonly Occasion[] = ['birthday', 'anniversary']

/** The yearly event of one occasion of a contact (as a series: its first day, and the rule). */
export function occasionEvent(contact: DatedContact, occasion: Occasion): ApiRecord | null {
  const date = parseCanonicalDate(String(contact[occasion] ?? ''))
  if (!date) return null
  const year = date.year ?? YEARLESS_START
  const day = `${String(year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`
  // Feb 29: the last day of February, so the years without one have it on the 28th.
  const rule: Recurrence = date.month === 2 && date.day === 29 ? { freq: 'YEARLY', bymonth: [2], bymonthday: [-1] } : { freq: 'YEARLY' }
  return {
    id: occasionId(contact.id, occasion),
    owner_id: contact.owner_id,
    title: `${String(contact.display_name)}'s ${occasion}`,
    description: null,
    location: null,
    start_at: `${day}T00:00:00.000Z`,
    end_at: null,
    all_day: true,
    recurrence: rule,
    status: 'confirmed',
    calendar_name: BIRTHDAYS,
    timezone: 'UTC',
    recurrence_id: null,
    occurrence_start: null,
    reminders: [],
    attendees: [],
    // What a client needs to link the event to its contact, and the year to count an age from.
    custom_fields: { contact_id: contact.id, occasion, ...(date.year === null ? {} : { year: date.year }) },
    source: 'contacts',
    created_at: contact.created_at,
    updated_at: contact.updated_at,
    deleted_at: null,
    etag: contact.etag,
  }
}

/** The occurrence of a series starting at `at` (what a ranged list shows). */
function occurrence(series: ApiRecord, at: number): ApiRecord {
  const start = new Date(at).toISOString()
  return { ...series, start_at: start, recurrence_id: series.id, occurrence_start: start }
}

const SORTS: Record<string, (r: ApiRecord) => string> = {
  start_at: (r) => String(r.start_at),
  title: (r) => String(r.title).toLowerCase(),
  created_at: (r) => String(r.created_at),
  updated_at: (r) => String(r.updated_at),
}

export interface BirthdaysCalendar {
  /** The events of the calendar (series, one per occasion) the caller may read; `own`: from their own contacts only. */
  series(userId: string, own?: boolean): ApiRecord[]
  /** GET /events?calendar_name=birthdays: the same list semantics as other calendars, ranged lists expanded. */
  list(userId: string, query: ListQuery, now: number, zone: string): Page
}

export function birthdaysCalendar(
  db: Database.Database,
  access: RecordAccess,
  defs: { contacts: ResourceDefinition; events: ResourceDefinition },
): BirthdaysCalendar {
  const events = (rows: DatedContact[]) =>
    rows.flatMap((row) => OCCASIONS.map((o) => occasionEvent(row, o)).filter((e): e is ApiRecord => e !== null))

  const series = (userId: string, own = false): ApiRecord[] => {
    const view = access.view(userId, defs.contacts, own)
    const rows = db
      .prepare<unknown[], DatedContact>(
        `SELECT t.id, t.user_id AS owner_id, t.display_name, t.birthday, t.anniversary, '"' || t.version || '"' AS etag, t.created_at, t.updated_at
         FROM contacts t
         WHERE ${view.scope.sql} AND t.deleted_at IS NULL AND (t.birthday IS NOT NULL OR t.anniversary IS NOT NULL) ORDER BY t.seq`,
      )
      .all(...view.scope.params)
    return events(rows)
  }

  return {
    series,
    list(userId, q, now, zone) {
      if (q.after !== undefined) throw invalidQuery('after', 'unsupported', 'the birthdays calendar pages by offset')
      // Nothing of it is ever deleted, and every event is confirmed.
      if (q.only_deleted || (q.status !== undefined && q.status !== 'confirmed')) return { items: [], total: 0 }
      if (q.source !== undefined && q.source !== 'contacts') return { items: [], total: 0 }
      let all = series(userId, q.owner === 'me')
      const search = q.search?.trim().toLowerCase()
      if (search) all = all.filter((e) => String(e.title).toLowerCase().includes(search))
      const window = queryWindow(q, now, zone)
      let items = all
      if (window) {
        items = []
        for (const s of all) {
          const starts = occurrences(s.recurrence as Recurrence, Date.parse(String(s.start_at)), window.from, window.to, MAX_EXPANDED + 1)
          if (items.length + starts.length > MAX_EXPANDED) {
            throw new HttpError(
              'UNPROCESSABLE',
              `the range holds more than ${MAX_EXPANDED} birthdays and anniversaries: ask for a shorter range`,
              {
                field: 'from',
                constraint: 'max_occurrences',
              },
            )
          }
          for (const at of starts) items.push(occurrence(s, at))
        }
      }
      const key = SORTS[q.sort ?? 'start_at'] ?? SORTS.start_at
      const sign = q.order === 'desc' ? -1 : 1
      items = [...items].sort((a, b) => {
        const [x, y] = [key?.(a) ?? '', key?.(b) ?? '']
        return x === y ? 0 : x < y ? -sign : sign
      })
      const page = items.slice(q.offset, q.offset + q.limit)
      return {
        total: items.length,
        items: q.format === 'compact' ? page.map((r) => dropEmpty(defs.events.compact(r))) : page,
      }
    },
  }
}
