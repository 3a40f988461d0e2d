import { HttpError } from '../../core/plugin-api.js'
import type { RecordsPluginService, ResourceName } from '../records/public.js'

/**
 * What a digest holds for one user: what is coming in the period (events with
 * their recurrences expanded by the records service's windowed list, reminders
 * falling due) and what changed in the period before now (notes, contacts).
 */
export type Period = 'day' | 'week'

export const PERIOD_MS: Record<Period, number> = { day: 86_400_000, week: 7 * 86_400_000 }
/** Reminders are found on events starting up to this long after the period (a reminder set further ahead is missed). */
const REMINDER_LOOKAHEAD_MS = 7 * 86_400_000
const PAGE = 200
/** At most this many entries per section: a digest is a summary. */
export const MAX_ENTRIES = 500

export interface DigestEvent {
  id: string
  series_id: string | null
  title: string
  start_at: string
  end_at: string | null
  all_day: boolean
  location: string | null
  calendar_name: string
}

export interface DigestReminder {
  event_id: string
  title: string
  event_start_at: string
  remind_at: string
  type: string
  minutes_before: number
}

export interface DigestTask {
  id: string
  title: string
  due_at: string
  all_day: boolean
  status: 'needs-action' | 'in-process'
  priority: number
  list_name: string
  overdue: boolean
}

export interface DigestChange {
  id: string
  title: string
  change: 'created' | 'updated'
  updated_at: string
}

export interface Digest {
  period: Period
  generated_at: string
  timezone: string
  upcoming: { from: string; to: string }
  changed_since: string
  events: DigestEvent[]
  reminders: DigestReminder[]
  tasks_due: DigestTask[]
  notes_changed: DigestChange[]
  contacts_changed: DigestChange[]
  truncated: boolean
}

export function composeDigest(records: RecordsPluginService, userId: string, period: Period, now: number): Digest {
  const { service } = records
  const span = PERIOD_MS[period]
  const iso = (ms: number) => new Date(ms).toISOString()
  let truncated = false

  /** Every page of a windowed events list (each occurrence of a series is one item). */
  const eventsBetween = (from: number, to: number) => {
    const out: Array<Record<string, unknown>> = []
    for (let offset = 0; out.length < MAX_ENTRIES * 4; offset += PAGE) {
      let page
      try {
        page = service.list(userId, 'events', { from: iso(from), to: iso(to), limit: PAGE, offset, sort: 'start_at', order: 'asc' })
      } catch (err) {
        // More occurrences in the range than the records engine expands at once: the digest says it is cut.
        if (err instanceof HttpError && err.code === 'UNPROCESSABLE') {
          truncated = true
          break
        }
        throw err
      }
      out.push(...page.items)
      if (offset + PAGE >= page.total) break
    }
    return out.filter((e) => e.status !== 'cancelled')
  }

  const coming = eventsBetween(now, now + span)
  const events: DigestEvent[] = coming.slice(0, MAX_ENTRIES).map((e) => ({
    id: String(e.id),
    series_id: (e.recurrence_id as string | null) ?? null,
    title: String(e.title),
    start_at: String(e.start_at),
    end_at: (e.end_at as string | null) ?? null,
    all_day: Boolean(e.all_day),
    location: (e.location as string | null) ?? null,
    calendar_name: String(e.calendar_name),
  }))
  if (coming.length > MAX_ENTRIES) truncated = true

  const reminders: DigestReminder[] = []
  for (const e of eventsBetween(now, now + span + REMINDER_LOOKAHEAD_MS)) {
    const start = Date.parse(String(e.start_at))
    for (const r of (e.reminders as Array<{ type: string; minutes_before: number }> | null) ?? []) {
      const at = start - r.minutes_before * 60_000
      if (at >= now && at < now + span) {
        reminders.push({
          event_id: String(e.id),
          title: String(e.title),
          event_start_at: String(e.start_at),
          remind_at: iso(at),
          type: r.type,
          minutes_before: r.minutes_before,
        })
      }
    }
  }
  reminders.sort((a, b) => a.remind_at.localeCompare(b.remind_at))
  if (reminders.length > MAX_ENTRIES) truncated = true

  // Open tasks due by the end of the period, the overdue ones first (the list's due order).
  const tasksDue: DigestTask[] = []
  for (let offset = 0; ; offset += PAGE) {
    const page = service.list(userId, 'tasks', {
      status: ['needs-action', 'in-process'],
      due_before: iso(now + span - 1),
      sort: 'due_at',
      order: 'asc',
      limit: PAGE,
      offset,
    })
    for (const task of page.items.slice(0, MAX_ENTRIES - tasksDue.length)) {
      tasksDue.push({
        id: String(task.id),
        title: String(task.title),
        due_at: String(task.due_at),
        all_day: Boolean(task.all_day),
        status: task.status as DigestTask['status'],
        priority: Number(task.priority),
        list_name: String(task.list_name),
        overdue: Date.parse(String(task.due_at)) < now,
      })
    }
    if (page.total > MAX_ENTRIES) truncated = true
    if (tasksDue.length === MAX_ENTRIES || offset + PAGE >= page.total) break
  }

  const since = now - span
  const changed = (resource: ResourceName, titleOf: (r: Record<string, unknown>) => string, extra: Record<string, unknown> = {}) => {
    const out: DigestChange[] = []
    for (let offset = 0; ; offset += PAGE) {
      const page = service.list(userId, resource, { ...extra, sort: 'updated_at', order: 'desc', limit: PAGE, offset })
      for (const r of page.items) {
        const at = Date.parse(String(r.updated_at))
        if (at < since) return out
        if (at > now) continue
        if (out.length === MAX_ENTRIES) {
          truncated = true
          return out
        }
        const created = Date.parse(String(r.created_at)) >= since
        out.push({ id: String(r.id), title: titleOf(r), change: created ? 'created' : 'updated', updated_at: String(r.updated_at) })
      }
      if (offset + PAGE >= page.total) return out
    }
  }

  return {
    period,
    generated_at: iso(now),
    timezone: service.timezone,
    upcoming: { from: iso(now), to: iso(now + span) },
    changed_since: iso(since),
    events,
    reminders: reminders.slice(0, MAX_ENTRIES),
    tasks_due: tasksDue,
    // Archived notes count as changes too: archiving is one.
    notes_changed: [
      ...changed('notes', (n) => String(n.title ?? '(untitled)')),
      ...changed('notes', (n) => String(n.title ?? '(untitled)'), { archived: true }),
    ].sort((a, b) => b.updated_at.localeCompare(a.updated_at)),
    contacts_changed: changed('contacts', (c) => String(c.display_name)),
    truncated,
  }
}
