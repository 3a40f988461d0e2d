import { toWall } from '../resources/zoned.js'

/**
 * A VTIMEZONE for an IANA zone (RFC 5545 3.6.5), from the tz database: one
 * STANDARD or DAYLIGHT observance per offset change between two years, found by
 * scanning offsets a week at a time (zones change at most twice a year, months
 * apart) and narrowing each change to the minute. Clients
 * that know the IANA name use their own data; the others read these observances.
 */
const DAY = 86_400_000
const STEP = 7 * DAY
const MINUTE = 60_000

const offsetAt = (instant: number, zone: string) => toWall(instant, zone).getTime() - Math.floor(instant / 1000) * 1000

const formatOffset = (ms: number) => {
  const minutes = Math.round(ms / MINUTE)
  const sign = minutes < 0 ? '-' : '+'
  const abs = Math.abs(minutes)
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`
}

/** A floating wall-clock time (UTC fields) as 20260308T020000. */
const floating = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '')

/** The first instant of (lo, hi] at which the zone's offset differs from its offset at lo. */
function changeBetween(lo: number, hi: number, zone: string): number {
  const before = offsetAt(lo, zone)
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE
    if (offsetAt(mid, zone) === before) lo = mid
    else hi = mid
  }
  return hi
}

/** Built observances by zone and span: exports repeat the same few zones. */
const built = new Map<string, string[]>()
const MAX_CACHED = 200

export function vtimezone(zone: string, fromYear: number, toYear: number): string[] {
  const key = `${zone}|${fromYear}|${toYear}`
  const cached = built.get(key)
  if (cached) return cached
  const lines = observances(zone, fromYear, toYear)
  if (built.size >= MAX_CACHED) built.delete(built.keys().next().value as string)
  built.set(key, lines)
  return lines
}

function observances(zone: string, fromYear: number, toYear: number): string[] {
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`]
  const first = Date.UTC(fromYear, 0, 1)
  const last = Date.UTC(toYear + 1, 0, 1)
  const transitions: Array<{ at: number; from: number; to: number }> = []
  let before = offsetAt(first, zone)
  for (let at = first; at < last; at += STEP) {
    const after = offsetAt(at + STEP, zone)
    if (after !== before) transitions.push({ at: changeBetween(at, at + STEP, zone), from: before, to: after })
    before = after
  }
  // The standard offset is the smaller of the year's offsets; a zone without changes has one.
  const standard = Math.min(offsetAt(first, zone), offsetAt(first + 182 * DAY, zone))
  if (transitions.length === 0) {
    const offset = formatOffset(offsetAt(first, zone))
    lines.push(
      'BEGIN:STANDARD',
      `DTSTART:${floating(toWall(first, zone).getTime())}`,
      `TZOFFSETFROM:${offset}`,
      `TZOFFSETTO:${offset}`,
      'END:STANDARD',
    )
  }
  for (const t of transitions) {
    const kind = t.to > standard ? 'DAYLIGHT' : 'STANDARD'
    // DTSTART is the local time just before the change, in the offset it had (RFC 5545 3.8.2.4).
    lines.push(
      `BEGIN:${kind}`,
      `DTSTART:${floating(t.at + t.from)}`,
      `TZOFFSETFROM:${formatOffset(t.from)}`,
      `TZOFFSETTO:${formatOffset(t.to)}`,
      `END:${kind}`,
    )
  }
  lines.push('END:VTIMEZONE')
  return lines
}
