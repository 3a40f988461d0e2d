import { type Static, Type } from '@sinclair/typebox'
import { StringEnum } from '../../../core/plugin-api.js'
import { local, localDay } from './event-window.js'

/**
 * Expands an RRULE-like recurrence (decisions.md keys: freq, interval, byday,
 * bymonthday, bymonth, count, until) into occurrence start times, in the
 * server's local time so a weekly 09:00 stays 09:00 across DST changes.
 * Bounded: at most `limit` occurrences per call and MAX_PERIODS periods walked.
 */
export const BYDAY = /^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$/
const DATE_OR_DATETIME = '^\\d{4}-\\d{2}-\\d{2}([Tt]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?([Zz]|[+-]\\d{2}:\\d{2})?)?$'

export const Recurrence = Type.Object(
  {
    freq: StringEnum(['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const),
    interval: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    byday: Type.Optional(Type.Array(Type.String({ pattern: BYDAY.source }), { minItems: 1, maxItems: 35 })),
    bymonthday: Type.Optional(Type.Array(Type.Integer({ minimum: -31, maximum: 31, not: { const: 0 } }), { minItems: 1, maxItems: 31 })),
    bymonth: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 12 }), { minItems: 1, maxItems: 12 })),
    count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    until: Type.Optional(Type.String({ pattern: DATE_OR_DATETIME, description: 'YYYY-MM-DD (inclusive, local time) or a datetime' })),
  },
  { additionalProperties: false },
)
export type Recurrence = Static<typeof Recurrence>

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

/** `until` as inclusive epoch ms: a bare day lasts until its end (local time). */
export function untilMs(until: string | undefined): number {
  if (!until) return Infinity
  const day = localDay(until)
  if (day) return local(day.getFullYear(), day.getMonth(), day.getDate() + 1).getTime() - 1
  const ms = Date.parse(until)
  return Number.isNaN(ms) ? Infinity : ms
}

const daysIn = (y: number, m: number) => local(y, m + 1, 0).getDate()

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
      for (const d of [...days]) if (!allowed.has(local(y, m, d).getDay())) days.delete(d)
    }
  } else if (rule.byday?.length) {
    for (const { day, nth } of rule.byday.map(weekday)) {
      const matching: number[] = []
      for (let d = 1; d <= last; d++) if (local(y, m, d).getDay() === day) matching.push(d)
      const picked = nth === null ? matching : [matching[nth > 0 ? nth - 1 : matching.length + nth]]
      for (const d of picked) if (d !== undefined) days.add(d)
    }
  } else if (startDay <= last) days.add(startDay)
  return [...days].sort((a, b) => a - b)
}

/** Candidate dates (local midnight) of period number `p`, sorted. */
function periodDays(rule: Recurrence, start: Date, p: number, interval: number): Date[] {
  const [y, m, d] = [start.getFullYear(), start.getMonth(), start.getDate()]
  const inMonths = (list: Date[]) => (rule.bymonth?.length ? list.filter((x) => rule.bymonth?.includes(x.getMonth() + 1)) : list)
  switch (rule.freq) {
    case 'DAILY': {
      const day = local(y, m, d + p * interval)
      const okDay = !rule.byday?.length || rule.byday.some((c) => weekday(c).day === day.getDay())
      const okMonthDay = !rule.bymonthday?.length || rule.bymonthday.includes(day.getDate())
      return okDay && okMonthDay ? inMonths([day]) : []
    }
    case 'WEEKLY': {
      const monday = d - ((start.getDay() + 6) % 7) + p * interval * 7
      const days = rule.byday?.length ? rule.byday.map((c) => (weekday(c).day + 6) % 7) : [(start.getDay() + 6) % 7]
      return inMonths([...new Set(days)].sort((a, b) => a - b).map((offset) => local(y, m, monday + offset)))
    }
    case 'MONTHLY': {
      const first = local(y, m + p * interval, 1)
      if (rule.bymonth?.length && !rule.bymonth.includes(first.getMonth() + 1)) return []
      return monthDays(first.getFullYear(), first.getMonth(), rule, d).map((day) => local(first.getFullYear(), first.getMonth(), day))
    }
    case 'YEARLY': {
      const year = y + p * interval
      const months = rule.bymonth?.length
        ? [...rule.bymonth].sort((a, b) => a - b).map((x) => x - 1)
        : rule.byday?.length && !rule.bymonthday?.length
          ? [...Array(12).keys()]
          : [m]
      return months.flatMap((mo) => monthDays(year, mo, rule, d).map((day) => local(year, mo, day)))
    }
  }
}

/** Local midnight at which period `p` begins. */
function periodStart(freq: Recurrence['freq'], start: Date, p: number, interval: number): number {
  const [y, m, d] = [start.getFullYear(), start.getMonth(), start.getDate()]
  if (freq === 'DAILY') return local(y, m, d + p * interval).getTime()
  if (freq === 'WEEKLY') return local(y, m, d - ((start.getDay() + 6) % 7) + p * interval * 7).getTime()
  if (freq === 'MONTHLY') return local(y, m + p * interval, 1).getTime()
  return local(y + p * interval, 0, 1).getTime()
}

/** First period worth walking when no `count` forces walking from the start. */
function firstPeriod(rule: Recurrence, start: Date, from: number, interval: number): number {
  if (rule.count || from <= start.getTime()) return 0
  const f = new Date(from)
  const months = (f.getFullYear() - start.getFullYear()) * 12 + f.getMonth() - start.getMonth()
  const span = {
    DAILY: (from - start.getTime()) / 86_400_000,
    WEEKLY: (from - start.getTime()) / (7 * 86_400_000),
    MONTHLY: months,
    YEARLY: months / 12,
  }[rule.freq]
  return Math.max(0, Math.floor(span / interval) - 1)
}

/** Occurrence starts (epoch ms) of a series starting at `startMs`, within [from, to]. */
export function occurrences(rule: Recurrence, startMs: number, from: number | null, to: number | null, limit: number): number[] {
  const start = new Date(startMs)
  const interval = rule.interval ?? 1
  const lower = from ?? startMs
  const upper = Math.min(to ?? lower + OPEN_WINDOW_MS, untilMs(rule.until))
  const time = [start.getHours(), start.getMinutes(), start.getSeconds(), start.getMilliseconds()] as const
  const out: number[] = []
  let seen = 0
  const first = firstPeriod(rule, start, lower, interval)
  for (let p = first; p < first + MAX_PERIODS; p++) {
    const days = periodDays(rule, start, p, interval)
    for (const day of days) {
      const at = local(day.getFullYear(), day.getMonth(), day.getDate(), ...time).getTime()
      if (at < startMs) continue
      if (at > upper || (rule.count && seen >= rule.count)) return out
      seen++
      if (at >= lower) out.push(at)
      if (out.length >= limit) return out
    }
    // Periods only move forward: once a period begins past the bound, stop.
    if (periodStart(rule.freq, start, p, interval) > upper) return out
  }
  return out
}
