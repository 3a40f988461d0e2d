import { invalidQuery } from '../engine/validate.js'
import { addDays, dayOf, fromWall, instantOf, parseDay, toWall, wall } from '../../../lib/timezone/wall-clock.js'

/**
 * The time window of an events list query, in the instance's time zone
 * (HEARTH_TIMEZONE, never the process TZ): `date` (today, tomorrow, this_week
 * Monday to Sunday, this_month, YYYY-MM-DD) and `from` / `to` (both inclusive).
 * Given together they intersect. Bounds are epoch milliseconds; null = open.
 */
export interface Window {
  from: number | null
  to: number | null
}

const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/

/** [start, end] of a `date` value; end is inclusive (the last millisecond). */
export function dateRange(value: string, now: number, zone = 'UTC'): [number, number] {
  const today = dayOf(toWall(now, zone))
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
      const sinceMonday = (today.getUTCDay() + 6) % 7
      start = addDays(today, -sinceMonday)
      next = addDays(start, 7)
      break
    }
    case 'this_month':
      start = wall(today.getUTCFullYear(), today.getUTCMonth(), 1)
      next = wall(today.getUTCFullYear(), today.getUTCMonth() + 1, 1)
      break
    default: {
      const day = parseDay(value)
      if (!day) throw invalidQuery('date', 'format', 'date must be today, tomorrow, this_week, this_month or a valid YYYY-MM-DD')
      ;[start, next] = [day, addDays(day, 1)]
    }
  }
  return [fromWall(start, zone), fromWall(next, zone) - 1]
}

/** A from/to bound: a datetime (no offset = the instance's zone), or a bare day (from: its start, to: its end). */
export function bound(value: string, edge: 'from' | 'to', zone = 'UTC', field: string = edge): number {
  const day = parseDay(value)
  if (day) return edge === 'from' ? fromWall(day, zone) : fromWall(addDays(day, 1), zone) - 1
  // Date.parse rolls 2026-02-30 over to March; the day must exist as written.
  const ms = DATETIME.test(value) && parseDay(value.slice(0, 10)) ? instantOf(value, zone) : Number.NaN
  if (Number.isNaN(ms)) throw invalidQuery(field, 'format', `${field} must be an ISO 8601 datetime or YYYY-MM-DD`)
  return ms
}

export function queryWindow(query: Record<string, unknown>, now: number, zone = 'UTC'): Window | null {
  if (query.date === undefined && query.from === undefined && query.to === undefined) return null
  let [from, to]: [number | null, number | null] = [null, null]
  if (typeof query.date === 'string') [from, to] = dateRange(query.date, now, zone)
  if (typeof query.from === 'string') from = Math.max(from ?? -Infinity, bound(query.from, 'from', zone))
  if (typeof query.to === 'string') to = Math.min(to ?? Infinity, bound(query.to, 'to', zone))
  return { from, to }
}
