import { formatStamp } from '../content-line/stamps.js'
import { type Recurrence, untilMs } from './recurrence.js'

/**
 * RRULE text ⇄ a recurrence object (freq, interval, byday, bymonthday,
 * bymonth, count, until: recurrence.ts). WKST is accepted and dropped (it only
 * matters with BYWEEKNO, which Hearth does not model); any other part would
 * change which days recur, so it fails the entry instead of being ignored.
 */
const FREQS = new Set(['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'])

export function parseRRule(value: string, line?: number): Recurrence {
  const where = line ? `line ${line}: ` : ''
  const parts = new Map<string, string>()
  for (const piece of value.trim().split(';').filter(Boolean)) {
    const [key, v] = piece.split('=')
    if (!key || v === undefined) throw new Error(`${where}RRULE part "${piece}" is malformed`)
    parts.set(key.toUpperCase(), v)
  }
  const freq = parts.get('FREQ')?.toUpperCase()
  if (!freq || !FREQS.has(freq)) throw new Error(`${where}RRULE FREQ must be one of DAILY, WEEKLY, MONTHLY, YEARLY`)
  const rule: Recurrence = { freq: freq as Recurrence['freq'] }
  for (const [key, v] of parts) {
    switch (key) {
      case 'FREQ':
      case 'WKST':
        break
      case 'INTERVAL':
        rule.interval = integer(v, key, where)
        break
      case 'COUNT':
        rule.count = integer(v, key, where)
        break
      case 'BYDAY':
        rule.byday = v.split(',').map((d) => d.trim().toUpperCase())
        break
      case 'BYMONTHDAY':
        rule.bymonthday = v.split(',').map((d) => integer(d, key, where))
        break
      case 'BYMONTH':
        rule.bymonth = v.split(',').map((d) => integer(d, key, where))
        break
      case 'UNTIL':
        rule.until = untilDate(v, where)
        break
      default:
        throw new Error(`${where}RRULE part ${key} is not supported`)
    }
  }
  return rule
}

function integer(v: string, key: string, where: string): number {
  if (!/^[+-]?\d+$/.test(v.trim())) throw new Error(`${where}RRULE ${key} must be an integer, got "${v}"`)
  return Number(v)
}

/**
 * UNTIL → the recurrence's `until`: a DATE stays a date (YYYY-MM-DD), a UTC
 * time becomes an ISO instant (never a local date: `T235959Z` ends a Paris
 * series at 00:59:59 Paris), a floating time a datetime in the event's zone.
 */
function untilDate(v: string, where: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(v.trim())
  if (!m) throw new Error(`${where}RRULE UNTIL "${v}" is not a date`)
  const [, y, mo, d, h, mi, s, z] = m
  const date = `${y}-${mo}-${d}`
  if (h === undefined) return date
  return `${date}T${h}:${mi}:${s}${z ? 'Z' : ''}`
}

/** Recurrence → RRULE value. */
export function formatRRule(rule: Recurrence, allDay: boolean, zone = 'UTC'): string {
  const parts = [`FREQ=${rule.freq}`]
  if (rule.interval !== undefined && rule.interval !== null) parts.push(`INTERVAL=${rule.interval}`)
  if (rule.byday?.length) parts.push(`BYDAY=${rule.byday.join(',')}`)
  if (rule.bymonthday?.length) parts.push(`BYMONTHDAY=${rule.bymonthday.join(',')}`)
  if (rule.bymonth?.length) parts.push(`BYMONTH=${rule.bymonth.join(',')}`)
  if (rule.count !== undefined && rule.count !== null) parts.push(`COUNT=${rule.count}`)
  if (rule.until) parts.push(`UNTIL=${formatUntil(rule.until, allDay, zone)}`)
  return parts.join(';')
}

/**
 * A DATE for all-day events; otherwise a UTC time (RFC 5545 3.3.10: UNTIL is UTC when DTSTART
 * has a zone): a date ends at the end of that day in the event's zone.
 */
function formatUntil(until: string, allDay: boolean, zone: string): string {
  if (allDay) return until.slice(0, 10).replace(/-/g, '')
  return formatStamp(new Date(untilMs(until, zone)).toISOString())
}
