import type { Recurrence } from './types.js'

/**
 * RRULE text ⇄ the recurrence object of decisions.md (freq, interval, byday,
 * bymonthday, bymonth, count, until). WKST is accepted and dropped (it only
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

/** UNTIL is a DATE or a DATE-TIME (UTC or floating); Hearth keeps the date. */
function untilDate(v: string, where: string): string {
  const m = /^(\d{4})(\d{2})(\d{2})(T\d{6}Z?)?$/.exec(v.trim())
  if (!m) throw new Error(`${where}RRULE UNTIL "${v}" is not a date`)
  return `${m[1]}-${m[2]}-${m[3]}`
}

/** Recurrence → RRULE value; UNTIL is a DATE for all-day events and the end of that UTC day otherwise (RFC 5545 wants the DTSTART's type). */
export function formatRRule(rule: Recurrence, allDay: boolean): string {
  const parts = [`FREQ=${rule.freq}`]
  if (rule.interval !== undefined && rule.interval !== null) parts.push(`INTERVAL=${rule.interval}`)
  if (rule.byday?.length) parts.push(`BYDAY=${rule.byday.join(',')}`)
  if (rule.bymonthday?.length) parts.push(`BYMONTHDAY=${rule.bymonthday.join(',')}`)
  if (rule.bymonth?.length) parts.push(`BYMONTH=${rule.bymonth.join(',')}`)
  if (rule.count !== undefined && rule.count !== null) parts.push(`COUNT=${rule.count}`)
  if (rule.until) {
    const date = rule.until.slice(0, 10).replace(/-/g, '')
    parts.push(`UNTIL=${allDay ? date : `${date}T235959Z`}`)
  }
  return parts.join(';')
}
