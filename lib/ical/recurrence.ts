import { dayKey, fromWall, instantOf, parseDay, toWall, wall } from '../timezone/wall-clock.js'

/**
 * Expands an RRULE-like recurrence (freq, interval, byday, bymonthday,
 * bymonth, count, until, and exdates) into occurrence start times,
 * in the event's own time zone (tz database) so a weekly 09:00 New York stays
 * 09:00 New York across DST changes, whatever the daemon's process TZ.
 * The walk runs on floating wall-clock Dates (UTC fields = wall clock, see lib/timezone/wall-clock.ts).
 * Bounded: at most `limit` occurrences per call and MAX_PERIODS periods walked.
 */
export const BYDAY = /^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$/

/** A recurrence rule as RRULE names its parts, lower-cased, plus the excluded starts (EXDATE). */
export interface Recurrence {
  freq: 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY'
  interval?: number
  /** MO..SU, optionally with an ordinal (1MO, -1FR) */
  byday?: string[]
  bymonthday?: number[]
  bymonth?: number[]
  count?: number
  /** YYYY-MM-DD (inclusive, in the series' zone) or an ISO datetime */
  until?: string
  /** Excluded occurrence starts: ISO instants, or YYYY-MM-DD for that day's occurrence in the series' zone */
  exdates?: string[]
}

const MAX_PERIODS = 100_000 // walked per call, counted from the first useful period
/** An open-ended window (from without to) expands at most this far. */
export const OPEN_WINDOW_MS = 366 * 86_400_000

const CODES = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA']

interface Weekday {
  day: number
  nth: number | null
}
const weekday = (code: string): Weekday => {
  const m = BYDAY.exec(code) as RegExpExecArray
  return { day: CODES.indexOf(m[2] as string), nth: m[1] ? Number(m[1]) : null }
}

/** `until` as inclusive epoch ms: a bare day lasts until its end in the event's zone. */
export function untilMs(until: string | undefined, zone = 'UTC'): number {
  if (!until) return Infinity
  const day = parseDay(until)
  if (day) return fromWall(wall(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1), zone) - 1
  const ms = instantOf(until, zone)
  return Number.isNaN(ms) ? Infinity : ms
}

/** Whether an occurrence start is excluded: an exdate names its instant, or its day in the event's zone. */
function exclusions(exdates: readonly string[] | undefined, zone: string): (at: number) => boolean {
  if (!exdates?.length) return () => false
  const instants = new Set<number>()
  const days = new Set<string>()
  for (const text of exdates) {
    if (parseDay(text)) days.add(text)
    else instants.add(instantOf(text, zone))
  }
  return (at) => instants.has(at) || (days.size > 0 && days.has(dayKey(at, zone)))
}

const daysIn = (y: number, m: number) => wall(y, m + 1, 0).getUTCDate()

/** Days of one month selected by bymonthday / byday (with ordinals), default the start's day. */
function monthDays(y: number, m: number, rule: Recurrence, startDay: number): number[] {
  const last = daysIn(y, m)
  const days = new Set<number>()
  if (rule.bymonthday?.length) {
    for (const d of rule.bymonthday) {
      const day = d > 0 ? d : last + d + 1
      if (day >= 1 && day <= last) days.add(day)
    }
    if (rule.byday?.length) {
      const allowed = new Set(rule.byday.map((c) => weekday(c).day))
      for (const d of [...days]) if (!allowed.has(wall(y, m, d).getUTCDay())) days.delete(d)
    }
  } else if (rule.byday?.length) {
    for (const { day, nth } of rule.byday.map(weekday)) {
      const matching: number[] = []
      for (let d = 1; d <= last; d++) if (wall(y, m, d).getUTCDay() === day) matching.push(d)
      const picked = nth === null ? matching : [matching[nth > 0 ? nth - 1 : matching.length + nth]]
      for (const d of picked) if (d !== undefined) days.add(d)
    }
  } else if (startDay <= last) days.add(startDay)
  return [...days].sort((a, b) => a - b)
}

/** Candidate dates (local midnight) of period number `p`, sorted. */
function periodDays(rule: Recurrence, start: Date, p: number, interval: number): Date[] {
  const [y, m, d] = [start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()]
  const inMonths = (list: Date[]) => (rule.bymonth?.length ? list.filter((x) => rule.bymonth?.includes(x.getUTCMonth() + 1)) : list)
  switch (rule.freq) {
    case 'DAILY': {
      const day = wall(y, m, d + p * interval)
      const okDay = !rule.byday?.length || rule.byday.some((c) => weekday(c).day === day.getUTCDay())
      const okMonthDay = !rule.bymonthday?.length || rule.bymonthday.includes(day.getUTCDate())
      return okDay && okMonthDay ? inMonths([day]) : []
    }
    case 'WEEKLY': {
      const monday = d - ((start.getUTCDay() + 6) % 7) + p * interval * 7
      const days = rule.byday?.length ? rule.byday.map((c) => (weekday(c).day + 6) % 7) : [(start.getUTCDay() + 6) % 7]
      return inMonths([...new Set(days)].sort((a, b) => a - b).map((offset) => wall(y, m, monday + offset)))
    }
    case 'MONTHLY': {
      const first = wall(y, m + p * interval, 1)
      if (rule.bymonth?.length && !rule.bymonth.includes(first.getUTCMonth() + 1)) return []
      return monthDays(first.getUTCFullYear(), first.getUTCMonth(), rule, d).map((day) =>
        wall(first.getUTCFullYear(), first.getUTCMonth(), day),
      )
    }
    case 'YEARLY': {
      const year = y + p * interval
      const months = rule.bymonth?.length
        ? [...rule.bymonth].sort((a, b) => a - b).map((x) => x - 1)
        : rule.byday?.length && !rule.bymonthday?.length
          ? [...Array(12).keys()]
          : [m]
      return months.flatMap((mo) => monthDays(year, mo, rule, d).map((day) => wall(year, mo, day)))
    }
  }
}

/** Local midnight at which period `p` begins. */
function periodStart(freq: Recurrence['freq'], start: Date, p: number, interval: number): number {
  const [y, m, d] = [start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()]
  if (freq === 'DAILY') return wall(y, m, d + p * interval).getTime()
  if (freq === 'WEEKLY') return wall(y, m, d - ((start.getUTCDay() + 6) % 7) + p * interval * 7).getTime()
  if (freq === 'MONTHLY') return wall(y, m + p * interval, 1).getTime()
  return wall(y + p * interval, 0, 1).getTime()
}

/** First period worth walking when no `count` forces walking from the start. */
function firstPeriod(rule: Recurrence, start: Date, from: number, interval: number): number {
  if (rule.count || from <= start.getTime()) return 0
  const f = new Date(from)
  const months = (f.getUTCFullYear() - start.getUTCFullYear()) * 12 + f.getUTCMonth() - start.getUTCMonth()
  const span = {
    DAILY: (from - start.getTime()) / 86_400_000,
    WEEKLY: (from - start.getTime()) / (7 * 86_400_000),
    MONTHLY: months,
    YEARLY: months / 12,
  }[rule.freq]
  return Math.max(0, Math.floor(span / interval) - 1)
}

/**
 * Occurrence starts (epoch ms) of a series starting at `startMs`, within [from, to], the wall
 * clock of `zone` (IANA) holding across DST. COUNT counts excluded starts too (RFC 5545 3.8.5.1).
 */
export function occurrences(
  rule: Recurrence,
  startMs: number,
  from: number | null,
  to: number | null,
  limit: number,
  zone = 'UTC',
): number[] {
  const start = toWall(startMs, zone)
  const interval = rule.interval ?? 1
  const lower = from ?? startMs
  const upper = Math.min(to ?? lower + OPEN_WINDOW_MS, untilMs(rule.until, zone))
  const excluded = exclusions(rule.exdates, zone)
  const time = [start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds(), start.getUTCMilliseconds()] as const
  const out: number[] = []
  let seen = 0
  const first = firstPeriod(rule, start, toWall(lower, zone).getTime(), interval)
  for (let p = first; p < first + MAX_PERIODS; p++) {
    const days = periodDays(rule, start, p, interval)
    for (const day of days) {
      const at = fromWall(wall(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), ...time), zone)
      if (at < startMs) continue
      if (at > upper || (rule.count && seen >= rule.count)) return out
      seen++
      if (at >= lower && !excluded(at)) out.push(at)
      if (out.length >= limit) return out
    }
    // Periods only move forward: once a period begins past the bound, stop.
    if (fromWall(new Date(periodStart(rule.freq, start, p, interval)), zone) > upper) return out
  }
  return out
}
