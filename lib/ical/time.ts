import type { ContentLine } from '../content-line/lines.js'
import { formatStamp } from '../content-line/stamps.js'
import { fromWall, isZone, toWall, wall } from '../timezone/wall-clock.js'

/**
 * iCalendar time values → ISO instants, in the zone each value names (tz
 * database through Luxon, never the daemon's process TZ). DATE values (all-day)
 * are dates: midnight UTC of that day, written back as the same date. UTC times
 * are taken as is; TZID times are wall-clock times in that zone; floating times
 * are wall-clock times in the importing instance's zone.
 */

/** Windows zone names Outlook writes in TZID, mapped to IANA. */
const WINDOWS_ZONES: Record<string, string> = {
  'W. Europe Standard Time': 'Europe/Berlin',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Romance Standard Time': 'Europe/Paris',
  'GMT Standard Time': 'Europe/London',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'China Standard Time': 'Asia/Shanghai',
  'India Standard Time': 'Asia/Kolkata',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'New Zealand Standard Time': 'Pacific/Auckland',
  'E. South America Standard Time': 'America/Sao_Paulo',
  UTC: 'UTC',
}

export interface TimeValue {
  iso: string
  /** The value was a DATE (all-day). */
  date: boolean
  /** The IANA zone the value was written in: its TZID, 'UTC' for a Z time, null for a DATE or a floating time. */
  zone: string | null
}

export function parseTime(cl: ContentLine, floatingZone = 'UTC'): TimeValue {
  const value = cl.value.trim()
  const dateOnly = /^(\d{4})(\d{2})(\d{2})$/.exec(value)
  if (dateOnly) {
    const [, y, m, d] = dateOnly
    return { iso: checked(Date.UTC(+y, +m - 1, +d), cl), date: true, zone: null }
  }
  const dt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/.exec(value)
  if (!dt) throw new Error(`line ${cl.line}: ${cl.name} has an invalid date-time "${value}"`)
  const [, y, mo, d, h, mi, s, utc] = dt
  const fields = [+y, +mo - 1, +d, +h, +mi, +s] as const
  if (utc) return { iso: checked(Date.UTC(...fields), cl), date: false, zone: 'UTC' }
  const tzid = cl.params.get('TZID')?.[0]
  if (!tzid) return { iso: checked(fromWall(wall(...fields), floatingZone), cl), date: false, zone: null }
  const zone = resolveZone(tzid)
  if (!zone) throw new Error(`line ${cl.line}: unknown time zone "${tzid}"`)
  return { iso: checked(fromWall(wall(...fields), zone), cl), date: false, zone }
}

function checked(ms: number, cl: ContentLine): string {
  if (Number.isNaN(ms)) throw new Error(`line ${cl.line}: ${cl.name} is not a valid date`)
  return new Date(ms).toISOString()
}

/** IANA name for a TZID: as is, a trailing Area/City of a prefixed id (old Thunderbird), or a Windows name. */
export function resolveZone(tzid: string): string | null {
  const segments = tzid.split('/')
  const candidates = [tzid, WINDOWS_ZONES[tzid], segments.slice(-2).join('/'), segments.slice(-3).join('/')]
  for (const candidate of candidates) if (candidate && isZone(candidate)) return candidate
  return null
}

/** RFC 5545 DURATION (e.g. -PT15M, P1D, -P1W) → seconds. */
export function parseDuration(value: string): number {
  const m = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(value.trim())
  if (!m || value.trim().replace(/^[+-]/, '') === 'P' || value.trim().endsWith('T')) throw new Error(`invalid duration "${value}"`)
  const [, sign, w, d, h, mi, s] = m
  const seconds = ((+(w ?? 0) * 7 + +(d ?? 0)) * 24 + +(h ?? 0)) * 3600 + +(mi ?? 0) * 60 + +(s ?? 0)
  return sign === '-' ? -seconds : seconds
}

/** Minutes before start → TRIGGER value (-PT15M; a negative count means after start). */
export function formatTrigger(minutesBefore: number): string {
  const sign = minutesBefore >= 0 ? '-' : ''
  const total = Math.abs(minutesBefore)
  if (total === 0) return 'PT0S'
  const days = Math.floor(total / 1440)
  const hours = Math.floor((total % 1440) / 60)
  const minutes = total % 60
  return `${sign}P${days ? `${days}D` : ''}${hours || minutes ? 'T' : ''}${hours ? `${hours}H` : ''}${minutes ? `${minutes}M` : ''}`
}

/**
 * ISO instant → 20261124T150000Z (UTC), its wall clock 20261124T160000 in a named zone (the line
 * then carries TZID), or its date 20261124 for all-day values.
 */
export function formatTime(iso: string, date: boolean, zone: string | null = null): string {
  if (date) return iso.slice(0, 10).replace(/-/g, '')
  if (!zone || zone === 'UTC') return formatStamp(iso)
  return toWall(Date.parse(iso), zone).toISOString().slice(0, 19).replace(/[-:]/g, '')
}
