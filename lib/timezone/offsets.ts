import { DateTime } from 'luxon'

/**
 * UTC offsets of an IANA zone from the tz database, fast: each year's offset
 * changes are found once (Luxon, a scan a week at a time narrowed to the
 * minute) and kept, so an offset is a lookup in a few numbers. Recurrence
 * expansion asks thousands of times per list; Luxon per call would take seconds.
 */
const DAY = 86_400_000
const STEP = 7 * DAY
const MINUTE = 60_000
const MAX_YEARS = 4000

interface Year {
  /** Offset (ms) at the year's first instant. */
  start: number
  /** [instant of the change, offset from then on], sorted. */
  changes: Array<[number, number]>
}

const years = new Map<string, Year>()

/** Midnight UTC of 1 January; unlike Date.UTC, years 0–99 stay themselves. */
const yearStart = (year: number) => new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(year)

const luxonOffset = (instant: number, zone: string) => DateTime.fromMillis(instant, { zone }).offset * MINUTE

function yearOf(zone: string, year: number): Year {
  const key = `${zone}|${year}`
  let table = years.get(key)
  if (table) return table
  const first = yearStart(year)
  const last = yearStart(year + 1)
  const changes: Array<[number, number]> = []
  let before = luxonOffset(first, zone)
  const start = before
  for (let at = first; at < last; at += STEP) {
    const end = Math.min(at + STEP, last)
    const after = luxonOffset(end, zone)
    if (after !== before) {
      let [lo, hi] = [at, end]
      while (hi - lo > MINUTE) {
        const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE
        if (luxonOffset(mid, zone) === before) lo = mid
        else hi = mid
      }
      changes.push([hi, after])
      before = after
    }
  }
  table = { start, changes }
  if (years.size >= MAX_YEARS) years.delete(years.keys().next().value as string)
  years.set(key, table)
  return table
}

/** The last year each zone was asked about: series walk through one year at a time. */
const recent = new Map<string, { from: number; to: number; table: Year }>()

/** The zone's UTC offset (ms) at an instant. */
export function offsetAt(instant: number, zone: string): number {
  let hit = recent.get(zone)
  if (!hit || instant < hit.from || instant >= hit.to) {
    const year = new Date(instant).getUTCFullYear()
    hit = { from: yearStart(year), to: yearStart(year + 1), table: yearOf(zone, year) }
    if (recent.size > 1000) recent.clear()
    recent.set(zone, hit)
  }
  const table = hit.table
  let offset = table.start
  for (const [at, after] of table.changes) {
    if (at > instant) break
    offset = after
  }
  return offset
}

/**
 * The instant of a wall-clock time (ms, as if UTC) in the zone. A repeated time takes its first
 * occurrence; a skipped one moves forward by the gap (RFC 5545 3.3.5), as dateutil and Luxon do.
 */
export function instantOfWall(wall: number, zone: string): number {
  const before = offsetAt(wall - DAY, zone)
  const after = offsetAt(wall + DAY, zone)
  const candidates = [wall - before, wall - after].filter((t) => offsetAt(t, zone) === wall - t)
  if (candidates.length) return Math.min(...candidates)
  return wall - before
}

/** Every offset change of the zone from the start of `fromYear` to the end of `toYear`. */
export function changesBetween(zone: string, fromYear: number, toYear: number): Array<{ at: number; from: number; to: number }> {
  const out: Array<{ at: number; from: number; to: number }> = []
  for (let year = fromYear; year <= toYear; year++) {
    const table = yearOf(zone, year)
    let before = table.start
    for (const [at, after] of table.changes) {
      out.push({ at, from: before, to: after })
      before = after
    }
  }
  return out
}
