import { IANAZone } from 'luxon'
import { instantOfWall, offsetAt } from './offsets.js'

/**
 * Wall-clock time in an IANA zone, with the tz database (Luxon): the calendar
 * arithmetic of recurrences and date windows runs on "floating" Dates whose
 * UTC fields are the wall-clock fields, so the daemon's process TZ never enters.
 */

/** 'UTC' (HEARTH_TIMEZONE's default, checked at every start) is answered without Luxon's Intl probe: the
 *  first Intl date formatter maps ICU's zone data, megabytes of RSS an idle daemon need not hold. */
export const isZone = (name: string): boolean => name === 'UTC' || IANAZone.isValidZone(name)

/** A floating Date from wall-clock parts; years 0–99 stay themselves. */
export function wall(y: number, m: number, d: number, h = 0, mi = 0, s = 0, ms = 0): Date {
  const date = new Date(Date.UTC(2000, 0, 1, h, mi, s, ms))
  date.setUTCFullYear(y, m, d)
  return date
}

/** The wall clock in `zone` at an instant. */
export function toWall(instant: number, zone: string): Date {
  if (zone === 'UTC') return new Date(instant)
  return new Date(instant + offsetAt(instant, zone))
}

/**
 * The instant a wall-clock time names in `zone`. A time that does not exist (skipped by a
 * DST change) moves forward by the gap, as RFC 5545 3.3.5 asks; a repeated one takes its
 * first occurrence.
 */
export function fromWall(at: Date, zone: string): number {
  if (zone === 'UTC') return at.getTime()
  return instantOfWall(at.getTime(), zone)
}

/** Midnight (floating) of the wall-clock day of `at`. */
export const dayOf = (at: Date): Date => wall(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())

export const addDays = (d: Date, n: number): Date => wall(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n)

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/

/** Floating midnight of a calendar day, or null when the day does not exist (2026-02-30). */
export function parseDay(text: string): Date | null {
  const m = DAY.exec(text)
  if (!m) return null
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])]
  const date = wall(y, mo, d)
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo && date.getUTCDate() === d ? date : null
}

const OFFSET = /([Zz]|[+-]\d{2}:?\d{2})$/

/** An ISO datetime as an instant: with an offset as written, without one as wall-clock time in `zone`. */
export function instantOf(text: string, zone: string): number {
  if (OFFSET.test(text)) return Date.parse(text)
  const floating = Date.parse(`${text.replace(' ', 'T')}Z`)
  return Number.isNaN(floating) ? Number.NaN : fromWall(new Date(floating), zone)
}

/** YYYY-MM-DD of the wall-clock day of an instant in `zone`. */
export const dayKey = (instant: number, zone: string): string => toWall(instant, zone).toISOString().slice(0, 10)
