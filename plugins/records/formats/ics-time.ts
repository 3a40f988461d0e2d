import type { ContentLine } from './content-line.js'
import { formatStamp } from './stamps.js'

/**
 * iCalendar time values → ISO instants. DATE values become local midnight
 * of that day and all-day instants are written back as their local date: the
 * server's time zone is the one decisions.md uses for `date` filters, so an
 * imported all-day event lands on the same day in listings. UTC times are
 * taken as is; TZID times are converted with the IANA database Node carries
 * (Intl); floating times use the server's local zone too.
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
  UTC: 'UTC',
}

export interface TimeValue {
  iso: string
  /** The value was a DATE (all-day). */
  date: boolean
}

export function parseTime(cl: ContentLine): TimeValue {
  const value = cl.value.trim()
  const dateOnly = /^(\d{4})(\d{2})(\d{2})$/.exec(value)
  if (dateOnly) {
    const [, y, m, d] = dateOnly
    return { iso: checked(new Date(+y, +m - 1, +d).getTime(), cl), date: true }
  }
  const dt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/.exec(value)
  if (!dt) throw new Error(`line ${cl.line}: ${cl.name} has an invalid date-time "${value}"`)
  const [, y, mo, d, h, mi, s, utc] = dt
  const fields = [+y, +mo - 1, +d, +h, +mi, +s] as const
  if (utc) return { iso: checked(Date.UTC(...fields), cl), date: false }
  const tzid = cl.params.get('TZID')?.[0]
  if (!tzid) return { iso: checked(new Date(...fields).getTime(), cl), date: false }
  const zone = resolveZone(tzid)
  if (!zone) throw new Error(`line ${cl.line}: unknown time zone "${tzid}"`)
  return { iso: checked(zonedToUtc(fields, zone), cl), date: false }
}

function checked(ms: number, cl: ContentLine): string {
  if (Number.isNaN(ms)) throw new Error(`line ${cl.line}: ${cl.name} is not a valid date`)
  return new Date(ms).toISOString()
}

/** IANA name for a TZID: as is, a trailing Area/City of a prefixed id (old Thunderbird), or a Windows name. */
export function resolveZone(tzid: string): string | null {
  const segments = tzid.split('/')
  const candidates = [tzid, WINDOWS_ZONES[tzid], segments.slice(-2).join('/'), segments.slice(-3).join('/')]
  for (const candidate of candidates) {
    if (!candidate) continue
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: candidate })
      return candidate
    } catch {
      // not a zone Node knows: try the next spelling
    }
  }
  return null
}

/** Wall-clock fields in `zone` → epoch ms (two passes settle DST edges). */
function zonedToUtc(fields: readonly [number, number, number, number, number, number], zone: string): number {
  const wall = Date.UTC(...fields)
  let guess = wall - offsetAt(wall, zone)
  guess = wall - offsetAt(guess, zone)
  return guess
}

function offsetAt(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms))
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value)
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'))
  return asUtc - Math.floor(ms / 1000) * 1000
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

/** ISO instant → 20261124T150000Z, or its local date 20261124 for all-day values. */
export function formatTime(iso: string, date: boolean): string {
  if (!date) return formatStamp(iso)
  const d = new Date(iso)
  return `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, '0')}${String(d.getDate()).padStart(2, '0')}`
}
