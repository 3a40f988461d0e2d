import { HttpError } from '../../core/plugin-api.js'
import { ByteBudget } from '../../lib/byte-budget.js'
import { Pacer } from '../../lib/paced-stream.js'
import type { RecordsPluginService, ResourceName } from '../records/public.js'
import { entryLines } from './render.js'

/**
 * What a digest holds for one user: what is coming in the period (events with
 * their recurrences expanded by the records service's windowed list, reminders
 * falling due) and what changed in the period before now (notes, contacts).
 *
 * A digest is composed within a byte budget, as it is read: records are read a page at a time
 * (each page within READ_BYTES, so a page of large notes or events is never held whole), only the
 * entry each record gives is kept, and the sections take an entry in turn until the budget or the
 * section runs out. Reading stops there: a digest over thousands of large records reads as many as
 * its entries need, and the event loop is given back between entries.
 */
export type Period = 'day' | 'week'

export const PERIOD_MS: Record<Period, number> = { day: 86_400_000, week: 7 * 86_400_000 }
/** Reminders are found on events starting up to this long after the period (a reminder set further ahead is missed). */
const REMINDER_LOOKAHEAD_MS = 7 * 86_400_000
const PAGE = 200
/** At most this many entries per section: a digest is a summary. */
export const MAX_ENTRIES = 500
/** Events read at most for one section (cancelled ones are read, not listed). */
const MAX_EVENTS_READ = MAX_ENTRIES * 4
/**
 * The bytes a digest's entries may take, each as JSON and as its Markdown line together: the
 * webhook body's 256 KiB, less room for the fixed fields, the headings and the envelope.
 */
export const DIGEST_BYTES = 248 * 1024
/** The bytes of records one read may hold (its first record always). */
const READ_BYTES = 1024 * 1024

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

type Item = Record<string, unknown>
type Page = { items: Item[]; total: number }

/** What a section yields after each page it reads: no entry yet, and the event loop may be given back. */
const PAUSE = Symbol('pause')
type Paused<T> = Generator<T | typeof PAUSE>

/** Every item of a list, a page at a time (each read when the one before is used up), up to about `cap`. */
function* paged(read: (offset: number) => Page, cap = Infinity): Paused<Item> {
  for (let offset = 0; offset < cap;) {
    const page = read(offset)
    yield PAUSE
    yield* page.items
    offset += page.items.length
    if (page.items.length === 0 || offset >= page.total) return
  }
}

/** Two lists each newest first, as one newest first (the first list first among equals). */
function* newestFirst(a: Paused<DigestChange>, b: Paused<DigestChange>): Paused<DigestChange> {
  // Each list's pauses are kept: the loop goes round after every page either reads.
  const next = function* (g: Paused<DigestChange>): Generator<typeof PAUSE, IteratorResult<DigestChange>> {
    for (;;) {
      const r = g.next()
      if (r.done || r.value !== PAUSE) return r as IteratorResult<DigestChange>
      yield PAUSE
    }
  }
  let x = yield* next(a)
  let y = yield* next(b)
  while (!x.done || !y.done) {
    if (y.done || (!x.done && x.value.updated_at >= y.value.updated_at)) {
      yield x.value as DigestChange
      x = yield* next(a)
    } else {
      yield y.value
      y = yield* next(b)
    }
  }
}

export async function composeDigest(
  records: RecordsPluginService,
  userId: string,
  period: Period,
  now: number,
  budgetBytes = DIGEST_BYTES,
): Promise<Digest> {
  const { service } = records
  const span = PERIOD_MS[period]
  const iso = (ms: number) => new Date(ms).toISOString()
  let truncated = false

  /** The events of a window (each occurrence of a series is one item), cancelled ones left out. */
  function* eventsBetween(from: number, to: number): Paused<Item> {
    const query = { from: iso(from), to: iso(to), limit: PAGE, sort: 'start_at' as const, order: 'asc' as const }
    try {
      for (const e of paged((offset) => service.list(userId, 'events', { ...query, offset }, { bytes: READ_BYTES }), MAX_EVENTS_READ)) {
        if (e === PAUSE || e.status !== 'cancelled') yield e
      }
    } catch (err) {
      // More occurrences in the range than the records engine expands at once: the digest says it is cut.
      if (!(err instanceof HttpError && err.code === 'UNPROCESSABLE')) throw err
      truncated = true
    }
  }

  function* coming(): Paused<DigestEvent> {
    for (const e of eventsBetween(now, now + span)) {
      if (e === PAUSE) {
        yield e
        continue
      }
      yield {
        id: String(e.id),
        series_id: (e.recurrence_id as string | null) ?? null,
        title: String(e.title),
        start_at: String(e.start_at),
        end_at: (e.end_at as string | null) ?? null,
        all_day: Boolean(e.all_day),
        location: (e.location as string | null) ?? null,
        calendar_name: String(e.calendar_name),
      }
    }
  }

  /** Reminders in the order they fall due: every event of the look-ahead is read first (at most MAX_EVENTS_READ). */
  function* reminders(): Paused<DigestReminder> {
    const due: DigestReminder[] = []
    for (const e of eventsBetween(now, now + span + REMINDER_LOOKAHEAD_MS)) {
      if (e === PAUSE) {
        yield e
        continue
      }
      const start = Date.parse(String(e.start_at))
      for (const r of (e.reminders as Array<{ type: string; minutes_before: number }> | null) ?? []) {
        const at = start - r.minutes_before * 60_000
        if (at >= now && at < now + span) {
          due.push({
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
    yield* due.sort((a, b) => a.remind_at.localeCompare(b.remind_at))
  }

  /** Open tasks due by the end of the period, the overdue ones first (the list's due order). */
  function* tasksDue(): Paused<DigestTask> {
    const query = {
      status: ['needs-action', 'in-process'],
      due_before: iso(now + span - 1),
      sort: 'due_at',
      order: 'asc',
      limit: PAGE,
    } as const
    for (const task of paged((offset) => service.list(userId, 'tasks', { ...query, offset }, { bytes: READ_BYTES }))) {
      if (task === PAUSE) {
        yield task
        continue
      }
      yield {
        id: String(task.id),
        title: String(task.title),
        due_at: String(task.due_at),
        all_day: Boolean(task.all_day),
        status: task.status as DigestTask['status'],
        priority: Number(task.priority),
        list_name: String(task.list_name),
        overdue: Date.parse(String(task.due_at)) < now,
      }
    }
  }

  const since = now - span
  function* changed(resource: ResourceName, titleOf: (r: Item) => string, extra: Item = {}): Paused<DigestChange> {
    const query = { ...extra, sort: 'updated_at', order: 'desc', limit: PAGE } as const
    for (const r of paged((offset) => service.list(userId, resource, { ...query, offset }, { bytes: READ_BYTES }))) {
      if (r === PAUSE) {
        yield r
        continue
      }
      const at = Date.parse(String(r.updated_at))
      if (at < since) return
      if (at > now) continue
      const created = Date.parse(String(r.created_at)) >= since
      yield { id: String(r.id), title: titleOf(r), change: created ? 'created' : 'updated', updated_at: String(r.updated_at) }
    }
  }
  const noteTitle = (n: Item) => String(n.title ?? '(untitled)')

  const line = entryLines(service.timezone)
  const digest: Digest = {
    period,
    generated_at: iso(now),
    timezone: service.timezone,
    upcoming: { from: iso(now), to: iso(now + span) },
    changed_since: iso(since),
    events: [],
    reminders: [],
    tasks_due: [],
    notes_changed: [],
    contacts_changed: [],
    truncated: false,
  }
  const budget = new ByteBudget(budgetBytes)
  /** One section filled an entry at a time; `take()` says whether it goes on. */
  const section = <T>(from: Paused<T>, out: T[], lineOf: (entry: T) => string) => ({
    take(): boolean {
      const next = from.next()
      if (next.done) return false
      // A page was read: the loop goes round (and gives the event loop back when its slice is spent).
      if (next.value === PAUSE) return true
      const entry = next.value as T
      const bytes = Buffer.byteLength(JSON.stringify(entry)) + 1 + Buffer.byteLength(JSON.stringify(lineOf(entry)))
      if (out.length < MAX_ENTRIES && budget.take(bytes)) {
        out.push(entry)
        return true
      }
      // An entry left out: the section stops, and nothing more of it is read.
      truncated = true
      from.return(undefined)
      return false
    },
  })
  let open = [
    section(coming(), digest.events, line.event),
    section(reminders(), digest.reminders, line.reminder),
    section(tasksDue(), digest.tasks_due, line.task),
    // Archived notes count as changes too: archiving is one.
    section(newestFirst(changed('notes', noteTitle), changed('notes', noteTitle, { archived: true })), digest.notes_changed, line.change),
    section(
      changed('contacts', (c) => String(c.display_name)),
      digest.contacts_changed,
      line.change,
    ),
  ]
  // The sections take an entry in turn, so that one long section cannot crowd the others out.
  const pacer = new Pacer()
  while (open.length) {
    open = open.filter((s) => s.take())
    await pacer.step()
  }
  digest.truncated = truncated
  return digest
}
