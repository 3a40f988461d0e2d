import type { CronFields } from './cron.js'

/**
 * The next run of a cron expression in the server's local time, computed with Date's local getters.
 *
 * node-cron computes every next run through `Intl.DateTimeFormat`, and the first Intl date formatter
 * of a process maps ICU's locale and time-zone data: about 5 MB of RSS held for the life of the daemon
 * (docs/performance.md, idle memory). The expressions the daemon schedules (`17 * * * *` and the like)
 * need only numbers, so they are matched here with the same rules as node-cron's TimeMatcher: the
 * expression expanded by node-cron's own `parse` (lib/cron.ts `numericFields`), every field must match
 * (day of month AND day of week), local times turned into instants the way node-cron does (a time
 * skipped by DST counts only if the instant it falls on still matches; a repeated one runs once).
 */
const matches = (f: CronFields, d: Date): boolean =>
  f.second.includes(d.getSeconds()) &&
  f.minute.includes(d.getMinutes()) &&
  f.hour.includes(d.getHours()) &&
  f.dayOfMonth.includes(d.getDate()) &&
  f.month.includes(d.getMonth() + 1) &&
  f.dayOfWeek.includes(d.getDay())

/** Minutes east of UTC at an instant, in the process zone. */
const offsetAt = (ms: number) => -new Date(ms).getTimezoneOffset()

const readsBack = (ms: number, y: number, mo: number, d: number, h: number, mi: number, s: number) => {
  const at = new Date(ms)
  return (
    at.getFullYear() === y &&
    at.getMonth() === mo &&
    at.getDate() === d &&
    at.getHours() === h &&
    at.getMinutes() === mi &&
    at.getSeconds() === s
  )
}

/**
 * node-cron's localTimeToTimestamp on the process zone, so that a repeated local time (DST ends) runs at
 * the same one of its two instants as node-cron chose, and a skipped one falls where node-cron's did.
 */
function localToInstant(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const guess = Date.UTC(y, mo, d, h, mi, s)
  const first = offsetAt(guess)
  const candidate1 = guess - first * 60000
  const second = offsetAt(candidate1)
  if (second === first) return candidate1
  const candidate2 = guess - second * 60000
  if (readsBack(candidate1, y, mo, d, h, mi, s)) return candidate1
  if (readsBack(candidate2, y, mo, d, h, mi, s)) return candidate2
  return Math.max(candidate1, candidate2)
}

/** Days searched ahead, as node-cron (a 29 February on a given weekday can be decades away). */
const MAX_DAYS = 366 * 100

/** The first instant strictly after `after` (whole seconds) that matches; throws when none within 100 years. */
export function nextMatch(f: CronFields, after: Date): Date {
  const baseMs = Math.floor(after.getTime() / 1000) * 1000
  const base = new Date(baseMs)
  const baseSecond = base.getHours() * 3600 + base.getMinutes() * 60 + base.getSeconds()
  let year = base.getFullYear()
  let month = base.getMonth()
  let day = base.getDate()
  for (let i = 0; i < MAX_DAYS; i++) {
    const date = new Date(year, month, day, 12)
    if (f.month.includes(month + 1) && f.dayOfMonth.includes(day) && f.dayOfWeek.includes(date.getDay())) {
      for (const hour of f.hour)
        for (const minute of f.minute)
          for (const second of f.second) {
            if (i === 0 && hour * 3600 + minute * 60 + second <= baseSecond) continue
            const at = new Date(localToInstant(year, month, day, hour, minute, second))
            if (at.getTime() > baseMs && matches(f, at)) return at
          }
    }
    const next = new Date(year, month, day + 1, 12)
    year = next.getFullYear()
    month = next.getMonth()
    day = next.getDate()
  }
  throw new Error('no matching date within 100 years')
}
