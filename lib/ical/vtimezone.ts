import { changesBetween, offsetAt } from '../timezone/offsets.js'

/**
 * A VTIMEZONE for an IANA zone (RFC 5545 3.6.5), from the tz database: one
 * STANDARD or DAYLIGHT observance per offset change between two years (the
 * changes lib/timezone/offsets.ts finds and keeps). Clients that know the IANA name use
 * their own data; the others read these observances.
 */
const MINUTE = 60_000
const DAY = 86_400_000

const formatOffset = (ms: number) => {
  const minutes = Math.round(ms / MINUTE)
  const abs = Math.abs(minutes)
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`
}

/** A floating wall-clock time (UTC fields) as 20260308T020000. */
const floating = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '')

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
  const first = new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(fromYear)
  const transitions = changesBetween(zone, fromYear, toYear)
  // The standard offset is the smaller of the year's offsets; a zone without changes has one.
  const standard = Math.min(offsetAt(first, zone), offsetAt(first + 182 * DAY, zone))
  if (transitions.length === 0) {
    const offset = formatOffset(offsetAt(first, zone))
    lines.push(
      'BEGIN:STANDARD',
      `DTSTART:${floating(first + offsetAt(first, zone))}`,
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
