import { invalidQuery } from '../engine/validate.js'

/**
 * The time window of an events list query, in the server's local time zone
 * (decisions.md): `date` (today, tomorrow, this_week Monday to Sunday,
 * this_month, YYYY-MM-DD) and `from` / `to` (both inclusive). Given
 * together they intersect. Bounds are epoch milliseconds; null = open.
 */
export interface Window {
  from: number | null
  to: number | null
}

/** A local date-time from its parts; unlike `new Date(y, ...)`, years 0–99 stay themselves. */
export function local(y: number, m: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date {
  const date = new Date(2000, 0, 1, h, mi, s, ms)
  date.setFullYear(y, m, d)
  return date
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/

/** Local midnight of a calendar day, or null when the day does not exist (2026-02-30). */
export function localDay(text: string): Date | null {
  const m = DAY.exec(text)
  if (!m) return null
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])]
  const date = local(y, mo, d)
  return date.getFullYear() === y && date.getMonth() === mo && date.getDate() === d ? date : null
}

const addDays = (d: Date, n: number) => local(d.getFullYear(), d.getMonth(), d.getDate() + n)
const midnight = (ms: number) => {
  const d = new Date(ms)
  return local(d.getFullYear(), d.getMonth(), d.getDate())
}

/** [start, end] of a `date` value; end is inclusive (the last millisecond). */
export function dateRange(value: string, now: number): [number, number] {
  const today = midnight(now)
  let start: Date
  let next: Date
  switch (value) {
    case 'today':
      ;[start, next] = [today, addDays(today, 1)]
      break
    case 'tomorrow':
      ;[start, next] = [addDays(today, 1), addDays(today, 2)]
      break
    case 'this_week': {
      const sinceMonday = (today.getDay() + 6) % 7
      start = addDays(today, -sinceMonday)
      next = addDays(start, 7)
      break
    }
    case 'this_month':
      start = local(today.getFullYear(), today.getMonth(), 1)
      next = local(today.getFullYear(), today.getMonth() + 1, 1)
      break
    default: {
      const day = localDay(value)
      if (!day) throw invalidQuery('date', 'format', 'date must be today, tomorrow, this_week, this_month or a valid YYYY-MM-DD')
      ;[start, next] = [day, addDays(day, 1)]
    }
  }
  return [start.getTime(), next.getTime() - 1]
}

/** A from/to bound: a datetime (no offset = local time), or a bare day (from: its start, to: its end). */
export function bound(value: string, field: 'from' | 'to'): number {
  const day = localDay(value)
  if (day) return field === 'from' ? day.getTime() : addDays(day, 1).getTime() - 1
  // Date.parse rolls 2026-02-30 over to March; the day must exist as written.
  const ms = DATETIME.test(value) && localDay(value.slice(0, 10)) ? Date.parse(value) : Number.NaN
  if (Number.isNaN(ms)) throw invalidQuery(field, 'format', `${field} must be an ISO 8601 datetime or YYYY-MM-DD`)
  return ms
}

export function queryWindow(query: Record<string, unknown>, now: number): Window | null {
  if (query.date === undefined && query.from === undefined && query.to === undefined) return null
  let [from, to]: [number | null, number | null] = [null, null]
  if (typeof query.date === 'string') [from, to] = dateRange(query.date, now)
  if (typeof query.from === 'string') from = Math.max(from ?? -Infinity, bound(query.from, 'from'))
  if (typeof query.to === 'string') to = Math.min(to ?? Infinity, bound(query.to, 'to'))
  return { from, to }
}
