import { occurrences, type Recurrence } from '../../../lib/ical/recurrence.js'
import type { ApiRecord } from '../engine/types.js'

/**
 * Completing a recurring task moves it to its next round (RFC 5545 VTODO with RRULE): the rule
 * runs from the task's due date (its start when it has none), exactly as an event series runs from
 * its start, in the task's zone (dates for all-day tasks). The next due date is the rule's first
 * occurrence after the current one that no exdate removes; the start moves by the same amount; a
 * count goes down by the occurrences passed, excluded ones included (COUNT counts them). Null when
 * the rule has no occurrence left: the task is then completed for good.
 */
const SEARCH_SPAN = 400 * 366 * 86_400_000
// Past this a due date has no four-digit year: the rule is then out of rounds, as past an until.
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z')

export function nextRound(task: ApiRecord): Record<string, unknown> | null {
  const rule = task.recurrence as Recurrence | null
  if (!rule) return null
  const from = task.due_at ? 'due_at' : 'start_at'
  const current = task[from] ? Date.parse(String(task[from])) : Number.NaN
  if (Number.isNaN(current)) return null
  const zone = task.all_day ? 'UTC' : String(task.timezone ?? 'UTC')
  const [next] = occurrences(rule, current, current + 1, Math.min(current + SEARCH_SPAN, LAST_INSTANT), 1, zone)
  if (next === undefined) return null
  const shift = next - current
  const moved = (key: string) => (task[key] ? new Date(Date.parse(String(task[key])) + shift).toISOString() : null)
  let recurrence: Recurrence = rule
  if (rule.count !== undefined) {
    // Every start of the rule from the current one up to the next, excluded or not, is spent (a
    // current due date the rule does not produce is not one of its starts, as python-dateutil counts).
    const { exdates: _ex, ...counted } = rule
    const spent = occurrences(counted, current, current, next - 1, rule.count, zone).length
    recurrence = { ...rule, count: Math.max(1, rule.count - spent) }
  }
  return { due_at: moved('due_at'), start_at: moved('start_at'), recurrence, status: 'needs-action', completed_at: null }
}
