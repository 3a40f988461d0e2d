import { contentLine, escapeText } from '../../../lib/content-line/lines.js'
import { formatStamp } from '../../../lib/content-line/stamps.js'
import { formatRRule } from '../../../lib/ical/rrule.js'
import { formatTime } from '../../../lib/ical/time.js'
import type { StoredProperty } from '../engine/properties.js'
import { customFieldLines } from './custom-fields.js'
import { ALARM_ACTIONS } from './ics-parse.js'
import { alarmLines, exdateLine, vtimezones } from './ics-serialize.js'
import type { TaskRecord } from './types.js'

type ExportedTask = TaskRecord & { id?: string }

/** Where a task list's tasks come from when it is written a piece at a time (an export, a DAV object). */
export interface TaskSource {
  /** Every task, in batches, oldest first; walked twice (the zones come first in the file). */
  batches(): Iterable<ExportedTask[]>
  /** The format lines imports kept for these tasks (id → lines). */
  properties(ids: readonly string[]): ReadonlyMap<string, StoredProperty[]>
  /** The UID a task is known by (its parent's, for RELATED-TO), or undefined when it is gone. */
  uid(id: string): string | undefined
}

const STATUS = { 'needs-action': 'NEEDS-ACTION', 'in-process': 'IN-PROCESS', completed: 'COMPLETED', cancelled: 'CANCELLED' } as const

/** The zone a timed task is written in with TZID; null for UTC and all-day tasks. */
const zoneOf = (t: ExportedTask): string | null => (t.all_day || !t.timezone || t.timezone === 'UTC' ? null : t.timezone)

/** A task's UID: the one its client gave (kept), else its id. */
export const taskUid = (id: string, kept: readonly StoredProperty[]) => kept.find(([n]) => n === 'UID')?.[2] ?? `${id}@hearth`

/** Tasks → one VCALENDAR of VTODOs (CRLF, folded), in pieces, each made when asked for. */
export function* todoChunks(source: TaskSource, now: number = Date.now()): Generator<string> {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Hearth//Hearth Records//EN', 'CALSCALE:GREGORIAN']
  const stamp = formatStamp(new Date(now).toISOString())
  const years = new Map<string, [number, number]>()
  for (const batch of source.batches()) {
    for (const task of batch) {
      const zone = zoneOf(task)
      const at = task.due_at ?? task.start_at
      if (!zone || !at) continue
      const year = new Date(at).getUTCFullYear()
      const [lo, hi] = years.get(zone) ?? [year, year]
      years.set(zone, [Math.min(lo, year), Math.max(hi, task.recurrence ? year + 10 : year)])
    }
    yield ''
  }
  lines.push(...vtimezones(years))
  yield `${lines.join('\r\n')}\r\n`
  for (const batch of source.batches()) {
    const kept = source.properties(batch.map((t) => t.id).filter((id): id is string => typeof id === 'string'))
    for (const task of batch) {
      const parent = task.parent_id ? source.uid(task.parent_id) : undefined
      yield `${vtodo(task, stamp, (task.id && kept.get(task.id)) || [], parent).join('\r\n')}\r\n`
    }
  }
  yield 'END:VCALENDAR\r\n'
}

/** A whole VCALENDAR of these tasks, as one string. */
export function serializeTodos(
  tasks: ExportedTask[],
  now: number,
  properties: ReadonlyMap<string, StoredProperty[]> = new Map(),
  uid: (id: string) => string | undefined = () => undefined,
): string {
  return [...todoChunks({ batches: () => [tasks], properties: () => properties, uid }, now)].join('')
}

function vtodo(t: ExportedTask, stamp: string, kept: StoredProperty[], parentUid: string | undefined): string[] {
  const lines = ['BEGIN:VTODO', contentLine('UID', [], t.id ? taskUid(t.id, kept) : (kept.find(([n]) => n === 'UID')?.[2] ?? ''))]
  lines.push(`DTSTAMP:${stamp}`)
  if (t.created_at) lines.push(`CREATED:${formatStamp(t.created_at)}`)
  if (t.updated_at) lines.push(`LAST-MODIFIED:${formatStamp(t.updated_at)}`)
  const zone = zoneOf(t)
  const params: Array<[string, string]> = t.all_day ? [['VALUE', 'DATE']] : zone ? [['TZID', zone]] : []
  if (t.start_at) lines.push(contentLine('DTSTART', params, formatTime(t.start_at, t.all_day, zone)))
  if (t.due_at) lines.push(contentLine('DUE', params, formatTime(t.due_at, t.all_day, zone)))
  if (t.completed_at) lines.push(`COMPLETED:${formatStamp(t.completed_at)}`)
  if (t.recurrence) {
    const anchor = t.due_at ?? t.start_at
    lines.push(`RRULE:${formatRRule(t.recurrence, t.all_day, t.timezone ?? 'UTC')}`)
    if (anchor) {
      const series = { all_day: t.all_day, start_at: anchor, timezone: t.timezone }
      for (const ex of t.recurrence.exdates ?? []) lines.push(exdateLine(ex, series, zone))
    }
  }
  lines.push(contentLine('SUMMARY', [], escapeText(t.title)))
  if (t.description) lines.push(contentLine('DESCRIPTION', [], escapeText(t.description)))
  lines.push(`STATUS:${STATUS[t.status] ?? 'NEEDS-ACTION'}`)
  if (t.priority) lines.push(`PRIORITY:${t.priority}`)
  if (t.tags.length) lines.push(contentLine('CATEGORIES', [], t.tags.map(escapeText).join(',')))
  if (parentUid) lines.push(contentLine('RELATED-TO', [['RELTYPE', 'PARENT']], escapeText(parentUid)))
  lines.push(contentLine('X-HEARTH-LIST', [], escapeText(t.list_name)))
  if (t.source) lines.push(contentLine('X-HEARTH-SOURCE', [], escapeText(t.source)))
  // Dates and a task without any carry no zone of their own: Hearth names it.
  if (t.timezone && (t.all_day || (!t.due_at && !t.start_at))) lines.push(contentLine('X-HEARTH-TIMEZONE', [], escapeText(t.timezone)))
  lines.push(...customFieldLines(t.custom_fields))
  for (const [name, params, value] of kept) {
    if (name === 'UID' || name === ALARM_ACTIONS) continue
    // A parent the record names now replaces one a client wrote that Hearth could not link.
    if (name === 'RELATED-TO' && parentUid && !params.some(([k, v]) => k === 'RELTYPE' && v[0]?.toUpperCase() !== 'PARENT')) continue
    lines.push(contentLine(name, params, value))
  }
  // Reminders count before the due time (RELATED=END in a VTODO), or before the start without one.
  lines.push(...alarmLines(t.title, t.reminders, kept, t.due_at ? [['RELATED', 'END']] : []))
  lines.push('END:VTODO')
  return lines
}
