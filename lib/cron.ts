import cron from 'node-cron'

/**
 * Cron expressions, read in one place: node-cron's syntax (its `validate` and `parse`), the fields it
 * expands them to, and the shortest time an expression allows between two runs.
 *
 * What users schedule (a digest, a sync connector) and what the operator configures (backups) runs at
 * most once per `minMinutes`: a schedule any shorter would let one person keep the daemon, an SMTP
 * server or someone's webhook busy without pause. A seconds field (node-cron's six-field form) is a
 * schedule finer than a minute, so it is refused as an interval, whatever it holds.
 */
export interface CronFields {
  second: number[]
  minute: number[]
  hour: number[]
  dayOfMonth: number[]
  month: number[]
  dayOfWeek: number[]
}

type Parsed = Record<keyof CronFields, (number | string)[]>
const FIELDS = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const

/** Whether node-cron accepts the expression at all (five or six fields, or a macro like `@daily`). */
export const isCron = (expression: string): boolean => cron.validate(expression)

/** The expanded fields of an expression node-cron accepts, or null when a field holds a token (L, W, #). */
export function numericFields(expression: string): CronFields | null {
  const parsed = cron.parse(expression) as unknown as Parsed
  const fields = {} as CronFields
  for (const key of FIELDS) {
    const values = parsed[key]
    if (!values.every((v) => typeof v === 'number')) return null
    fields[key] = [...(values as number[])].sort((a, b) => a - b)
  }
  return fields
}

const DAY_MINUTES = 24 * 60
/** Days looked through for two consecutive days that both match: 28 years hold every weekday and leap-day combination of a century. */
const CALENDAR_DAYS = 28 * 366

/**
 * The shortest gap in minutes between two runs of a five-field expression (wall-clock time), capped at
 * a day: an expression whose runs are a day or more apart answers 1440. Within a day the runs are the
 * hours × minutes it names; across midnight the last run of a day is followed by the first of the
 * next only when two consecutive days both match (day of month, month and day of week together).
 */
export function minIntervalMinutes(expression: string): number {
  const parsed = cron.parse(expression) as unknown as Parsed
  const numbers = (key: keyof CronFields) => parsed[key].filter((v): v is number => typeof v === 'number')
  const times: number[] = []
  for (const h of new Set(numbers('hour'))) for (const m of new Set(numbers('minute'))) times.push(h * 60 + m)
  times.sort((a, b) => a - b)
  let gap = DAY_MINUTES
  for (let i = 1; i < times.length; i++) gap = Math.min(gap, (times[i] as number) - (times[i - 1] as number))
  if (consecutiveDaysMatch(parsed)) gap = Math.min(gap, DAY_MINUTES - (times.at(-1) as number) + (times[0] as number))
  return gap
}

/** A day field holding a token (L: last day, W: nearest weekday, #: nth weekday) is taken to match any day: the answer errs short. */
function consecutiveDaysMatch(parsed: Parsed): boolean {
  const set = (key: keyof CronFields) => (parsed[key].every((v) => typeof v === 'number') ? new Set(parsed[key] as number[]) : null)
  const dom = set('dayOfMonth')
  const month = set('month')
  const dow = set('dayOfWeek')
  const matches = (d: Date) =>
    (!dom || dom.has(d.getUTCDate())) && (!month || month.has(d.getUTCMonth() + 1)) && (!dow || dow.has(d.getUTCDay()))
  let previous = false
  for (let i = 0, day = Date.UTC(2000, 0, 1); i < CALENDAR_DAYS; i++, day += 86_400_000) {
    const now = matches(new Date(day))
    if (now && previous) return true
    previous = now
  }
  return false
}

/** Why a schedule is refused: not cron at all, or runs closer together than the minimum. */
export type ScheduleProblem = 'format' | 'interval'

/** The shortest interval users' and operators' schedules may have (digest, sync, backups). */
export const MIN_SCHEDULE_MINUTES = 15

/** Checks a schedule: node-cron syntax, no seconds field, and at least `minMinutes` between runs. Null when it is fine. */
export function scheduleProblem(expression: string, minMinutes = MIN_SCHEDULE_MINUTES): ScheduleProblem | null {
  if (!cron.validate(expression)) return 'format'
  if (expression.trim().split(/\s+/).length === 6) return 'interval'
  return minIntervalMinutes(expression) < minMinutes ? 'interval' : null
}

/** What to tell whoever wrote the schedule. */
export function scheduleMessage(problem: ScheduleProblem, minMinutes = MIN_SCHEDULE_MINUTES): string {
  return problem === 'format'
    ? 'not a cron expression (five fields: minute hour day-of-month month day-of-week)'
    : `runs more often than once every ${minMinutes} minutes (or has a seconds field)`
}
