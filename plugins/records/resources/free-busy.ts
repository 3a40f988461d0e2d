import type Database from 'better-sqlite3'
import { HttpError, preparedOnUse } from '../../../core/plugin-api.js'
import { occurrences, type Recurrence } from '../../../lib/ical/recurrence.js'
import { fromWall } from '../../../lib/timezone/wall-clock.js'
import { invalidQuery } from '../engine/validate.js'
import { bound } from './event-window.js'
import type { MemberLookup } from '../sharing/access.js'

/**
 * Free/busy: when members are busy, from their own events and the invitations they have not
 * declined (series expanded, overrides in place of the occurrences they replace, exdates left
 * out), without cancelled events, declined invitations and events marked TRANSP:TRANSPARENT
 * (a property kept from iCalendar). Only intervals come out, never a title.
 *
 * The work is bounded: a window of at most MAX_WINDOW_DAYS, at most MAX_SERIES series per
 * member and MAX_INTERVALS intervals per request (past them: 422, ask for a shorter window).
 * Rows are read as the columns needed, never whole records.
 */
export const MAX_WINDOW_DAYS = 366
export const MAX_SERIES = 5000
export const MAX_INTERVALS = 50_000
/** A plain event is found by its start: one longer than this, begun before the window, is not seen. */
export const LOOKBACK_MS = 31 * 86_400_000
const DAY = 86_400_000

export interface Interval {
  start: string
  end: string
}

interface Row {
  id: string
  owner: string
  start_at: string
  end_at: string | null
  all_day: number
  timezone: string
  recurrence: string | null
  status: string
  attendees: string
}

const COLUMNS = 't.id, t.user_id AS owner, t.start_at, t.end_at, t.all_day, t.timezone, t.recurrence, t.status, t.attendees'
const LIVE =
  "t.deleted_at IS NULL AND t.status <> 'cancelled' AND NOT EXISTS (SELECT 1 FROM events s WHERE s.id = t.recurrence_id AND s.deleted_at IS NOT NULL)"
/** A member's: theirs, or naming them among the attendees. One calendar's: its events. */
const WHOSE = {
  member: '(t.user_id = @user OR t.id IN (SELECT event_id FROM records_invitations WHERE email = @email))',
  calendar: 't.user_id = @user AND t.calendar_name = @calendar',
}
type Scope = keyof typeof WHOSE

const tooMuch = () =>
  new HttpError('UNPROCESSABLE', 'this window holds too many busy intervals: ask for a shorter range', {
    field: 'from',
    constraint: 'max_occurrences',
  })

export type FreeBusy = ReturnType<typeof freeBusy>

/** The most members one free/busy question names. */
export const MAX_FREE_BUSY_USERS = 20

export function freeBusy(db: Database.Database, member: MemberLookup, zone: string) {
  const statements = (whose: string) =>
    preparedOnUse(db, {
      series: () =>
        db.prepare<Record<string, unknown>, Row>(
          `SELECT ${COLUMNS} FROM events t WHERE ${whose} AND t.recurrence IS NOT NULL AND t.start_at <= @to AND ${LIVE} LIMIT ${MAX_SERIES + 1}`,
        ),
      plain: () =>
        db.prepare<Record<string, unknown>, Row>(
          `SELECT ${COLUMNS} FROM events t WHERE ${whose} AND t.recurrence IS NULL AND t.start_at >= @since AND t.start_at <= @to ` +
            `AND coalesce(t.end_at, t.start_at) >= @from AND ${LIVE} LIMIT ${MAX_INTERVALS + 1}`,
        ),
    })
  const scoped = { member: statements(WHOSE.member), calendar: statements(WHOSE.calendar) }
  const q = preparedOnUse(db, {
    replaced: () =>
      db.prepare<[string], { series: string; start: string }>(
        // By the owner's index of overrides: each series is [owner, id].
        'SELECT t.recurrence_id AS series, t.occurrence_start AS start FROM json_each(?) j CROSS JOIN events t ' +
          "ON t.user_id = json_extract(j.value, '$[0]') AND t.recurrence_id = json_extract(j.value, '$[1]')",
      ),
    transparent: () =>
      db.prepare<[string], { record_id: string; lines: string }>(
        'SELECT p.record_id, p.lines FROM json_each(?) j CROSS JOIN records_properties p ON p.record_id = j.value WHERE instr(p.lines, \'"TRANSP"\') > 0',
      ),
  })

  /** Whether the member (by email) declined this event. */
  const declined = (row: Row, email: string) =>
    (JSON.parse(row.attendees) as Array<{ email: string; status?: string }>).some(
      (a) => a.email.toLowerCase() === email && a.status === 'declined',
    )

  /** The ids among these whose kept iCalendar lines say TRANSP:TRANSPARENT. */
  const transparentOf = (ids: string[]): Set<string> => {
    const out = new Set<string>()
    for (const { record_id, lines } of q.transparent.all(JSON.stringify(ids))) {
      const parsed = JSON.parse(lines) as Array<[string, unknown, string]>
      if (parsed.some(([name, , value]) => name === 'TRANSP' && String(value).toUpperCase() === 'TRANSPARENT')) out.add(record_id)
    }
    return out
  }

  /** An all-day event holds whole days of the household's zone; a timed one its instants. */
  const span = (row: Row, start: number): [number, number] => {
    const length = row.end_at ? Date.parse(row.end_at) - Date.parse(row.start_at) : row.all_day ? DAY : 0
    if (!row.all_day) return [start, start + length]
    return [fromWall(new Date(start), zone), fromWall(new Date(start + Math.max(length, DAY)), zone)]
  }

  function busyOf(
    scope: Scope,
    user: string,
    email: string,
    from: number,
    to: number,
    budget: { left: number },
    calendar = '',
  ): Array<[number, number]> {
    const params = {
      user,
      ...(scope === 'member' ? { email } : { calendar }),
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      since: new Date(from - LOOKBACK_MS).toISOString(),
    }
    const series = scoped[scope].series.all(params)
    if (series.length > MAX_SERIES) throw tooMuch()
    const plain = scoped[scope].plain.all(params)
    const kept = [...series, ...plain].filter((r) => !declined(r, email))
    const transparent = transparentOf(kept.map((r) => r.id))
    const out: Array<[number, number]> = []
    const take = (interval: [number, number]) => {
      if (interval[1] <= from || interval[0] > to) return
      if (--budget.left < 0) throw tooMuch()
      out.push([Math.max(interval[0], from), Math.min(interval[1], to)])
    }
    const repeating = kept.filter((r) => r.recurrence !== null && !transparent.has(r.id))
    const skip = new Map<string, Set<number>>()
    for (const { series: id, start } of q.replaced.all(JSON.stringify(repeating.map((r) => [r.owner, r.id])))) {
      skip.set(id, (skip.get(id) ?? new Set()).add(Date.parse(start)))
    }
    for (const row of repeating) {
      const first = Date.parse(row.start_at)
      const [s, e] = span(row, first)
      // Occurrences begun before the window still hold part of it: look back by one length (and a day of zone).
      const lookback = e - s + DAY
      const expandZone = row.all_day ? 'UTC' : row.timezone
      const rule = JSON.parse(row.recurrence as string) as Recurrence
      for (const at of occurrences(rule, first, from - lookback, to, budget.left + 1, expandZone)) {
        if (!skip.get(row.id)?.has(at)) take(span(row, at))
      }
    }
    for (const row of kept) if (row.recurrence === null && !transparent.has(row.id)) take(span(row, Date.parse(row.start_at)))
    return out
  }

  const checkWindow = (from: number, to: number) => {
    if (to - from > MAX_WINDOW_DAYS * DAY) throw invalidQuery('to', 'max_window', `the window may span at most ${MAX_WINDOW_DAYS} days`)
  }

  return {
    /** One calendar of a member's: when its events make them busy (CalDAV free-busy-query). */
    ofCalendar(owner: string, calendar: string, from: number, to: number): Interval[] {
      checkWindow(from, to)
      const email = member(owner)?.email.toLowerCase() ?? ''
      return merged(busyOf('calendar', owner, email, from, to, { left: MAX_INTERVALS }, calendar))
    },

    /**
     * `GET /freebusy` as asked: `users` a comma-separated list of member ids, `from` and `to` datetimes
     * or days (`to` a whole day) in the household's zone.
     */
    asked(users: string, from: string, to: string): Array<{ user_id: string; busy: Interval[] }> {
      const ids = [...new Set(users.split(',').map((u) => u.trim()))]
      if (ids.length > MAX_FREE_BUSY_USERS || ids.some((id) => id === ''))
        throw invalidQuery('users', 'list', `users is a comma-separated list of at most ${MAX_FREE_BUSY_USERS} member ids`)
      const start = bound(from, 'from', zone)
      const end = bound(to, 'to', zone)
      if (end < start) throw invalidQuery('to', 'after_from', 'to must not be before from')
      return this.of(ids, start, end)
    },

    /** Each member's busy intervals in [from, to], merged and in order; 404 for an id that is no member. */
    of(userIds: string[], from: number, to: number): Array<{ user_id: string; busy: Interval[] }> {
      checkWindow(from, to)
      const members = userIds.map((id) => {
        const found = member(id)
        if (!found) throw new HttpError('NOT_FOUND', 'No member of this instance has that id')
        return found
      })
      const budget = { left: MAX_INTERVALS }
      return members.map((m) => ({ user_id: m.id, busy: merged(busyOf('member', m.id, m.email.toLowerCase(), from, to, budget)) }))
    },
  }
}

/** Overlapping or touching intervals as one, in order. */
export function merged(intervals: Array<[number, number]>): Interval[] {
  const sorted = intervals.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0])
  const out: Array<[number, number]> = []
  for (const [s, e] of sorted) {
    const last = out[out.length - 1]
    if (last && s <= last[1]) last[1] = Math.max(last[1], e)
    else out.push([s, e])
  }
  return out.map(([s, e]) => ({ start: new Date(s).toISOString(), end: new Date(e).toISOString() }))
}
