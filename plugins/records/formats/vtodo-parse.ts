import type { Component } from '../../../lib/content-line/components.js'
import { splitEscaped, unescapeText } from '../../../lib/content-line/lines.js'
import { parseStamp } from '../../../lib/content-line/stamps.js'
import { parseRRule } from '../../../lib/ical/rrule.js'
import { parseDuration, parseTime, type TimeValue } from '../../../lib/ical/time.js'
import { isZone } from '../../../lib/timezone/wall-clock.js'
import type { StoredProperty } from '../engine/properties.js'
import { CUSTOM_FIELD_PROPERTY, readCustomField } from './custom-fields.js'
import { alarmActions, parseEntries, withExdates } from './ics-parse.js'
import type { ParseResult, TaskRecord } from './types.js'

/**
 * iCalendar → tasks: every VTODO of every VCALENDAR (Apple Reminders, Thunderbird, tasks.org
 * through DAVx⁵, python's icalendar write them). The list comes from X-HEARTH-LIST, else the
 * file's X-WR-CALNAME; CATEGORIES are tags. RELATED-TO (a parent) is handed on as `parent_uid`
 * for the import to link. What has no field (UID, X-APPLE-..., PERCENT-COMPLETE...) is kept.
 */
const STATUS: Record<string, TaskRecord['status']> = {
  'NEEDS-ACTION': 'needs-action',
  'IN-PROCESS': 'in-process',
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
}

export function parseTodos(text: string, options: { zone?: string } = {}): ParseResult<TaskRecord> {
  const zone = options.zone ?? 'UTC'
  return parseEntries(text, 'VTODO', (vtodo, calName) => {
    const record = readTodo(vtodo, zone, calName)
    return { record, properties: [...unmapped(vtodo, record), ...alarmActions(vtodo)] }
  })
}

function readTodo(vtodo: Component, floatingZone: string, fileList?: string): TaskRecord {
  const prop = (name: string) => vtodo.properties.find((p) => p.name === name)
  const text = (name: string) => {
    const cl = prop(name)
    return cl ? unescapeText(cl.value) : null
  }
  const dtstart = prop('DTSTART')
  const start = dtstart ? parseTime(dtstart, floatingZone) : null
  const dueLine = prop('DUE')
  let due: TimeValue | null = dueLine ? parseTime(dueLine, start?.zone ?? floatingZone) : null
  const duration = prop('DURATION')
  if (!due && start && duration) {
    due = { ...start, iso: new Date(Date.parse(start.iso) + parseDuration(duration.value) * 1000).toISOString() }
  }
  const anchor = due ?? start
  // A task's wall clock: its values' zone; for dates, Hearth's own X-HEARTH-TIMEZONE; else the instance's.
  const named = text('X-HEARTH-TIMEZONE')?.trim()
  const timezone = anchor?.zone ?? (named && isZone(named) ? named : floatingZone)
  const completedLine = prop('COMPLETED')
  const completed = completedLine ? parseTime(completedLine, timezone).iso : null
  const statusText = text('STATUS')?.trim().toUpperCase()
  const status = (statusText && STATUS[statusText]) || (completed ? 'completed' : 'needs-action')
  const priority = Number.parseInt(text('PRIORITY')?.trim() ?? '0', 10)
  const rrule = prop('RRULE')
  const custom: Record<string, unknown> = {}
  for (const cl of vtodo.properties.filter((p) => p.name === CUSTOM_FIELD_PROPERTY)) {
    const [key, value] = readCustomField(cl)
    custom[key] = value
  }
  const record: TaskRecord = {
    title: text('SUMMARY')?.trim() || 'Untitled task',
    description: text('DESCRIPTION') || null,
    status,
    due_at: due?.iso ?? null,
    start_at: start?.iso ?? null,
    all_day: Boolean(anchor?.date),
    completed_at: status === 'completed' ? completed : null,
    priority: priority >= 0 && priority <= 9 ? priority : 0,
    list_name: text('X-HEARTH-LIST')?.trim() || fileList || 'default',
    tags: [
      ...new Set(
        vtodo.properties
          .filter((p) => p.name === 'CATEGORIES')
          .flatMap((p) => splitEscaped(p.value, ','))
          .map((c) => c.trim())
          .filter(Boolean),
      ),
    ],
    recurrence: rrule ? withExdates(parseRRule(rrule.value, rrule.line), vtodo, timezone) : null,
    reminders: vtodo.components
      .filter((c) => c.name === 'VALARM')
      .map((alarm) => readAlarm(alarm, start?.iso ?? null, due?.iso ?? null))
      .filter((r) => r !== null),
    timezone,
    custom_fields: Object.keys(custom).length > 0 ? custom : null,
  }
  const parent = parentOf(vtodo)
  if (parent) record.parent_uid = parent
  const source = text('X-HEARTH-SOURCE')?.trim()
  if (source) record.source = source
  const created = prop('CREATED') ? parseStamp(String(prop('CREATED')?.value)) : undefined
  const modified = prop('LAST-MODIFIED') ? parseStamp(String(prop('LAST-MODIFIED')?.value)) : undefined
  if (created) record.created_at = created
  if (modified) record.updated_at = modified
  return record
}

/** The parent's UID: RELATED-TO with RELTYPE=PARENT, the default relation (RFC 5545 3.8.4.5). */
function parentOf(vtodo: Component): string | undefined {
  const line = vtodo.properties.find(
    (p) => p.name === 'RELATED-TO' && (p.params.get('RELTYPE')?.[0] ?? 'PARENT').toUpperCase() === 'PARENT',
  )
  return line ? unescapeText(line.value).trim() || undefined : undefined
}

/** Reminders count minutes before the due time (the start when there is none); RELATED=END is the due time. */
function readAlarm(alarm: Component, startIso: string | null, dueIso: string | null): TaskRecord['reminders'][number] | null {
  const trigger = alarm.properties.find((p) => p.name === 'TRIGGER')
  if (!trigger) throw new Error(`line ${alarm.line}: VALARM has no TRIGGER`)
  const reference = dueIso ?? startIso
  if (!reference) return null
  const action = alarm.properties
    .find((p) => p.name === 'ACTION')
    ?.value.trim()
    .toUpperCase()
  let fireAt: number
  if (trigger.params.get('VALUE')?.[0]?.toUpperCase() === 'DATE-TIME') fireAt = Date.parse(parseTime(trigger).iso)
  else {
    const toEnd = trigger.params.get('RELATED')?.[0]?.toUpperCase() === 'END'
    const base = toEnd ? (dueIso ?? reference) : (startIso ?? reference)
    try {
      fireAt = Date.parse(base) + parseDuration(trigger.value) * 1000
    } catch (err) {
      throw new Error(`line ${trigger.line}: ${(err as Error).message}`)
    }
  }
  return { type: action === 'EMAIL' ? 'email' : 'notification', minutes_before: Math.round((Date.parse(reference) - fireAt) / 60_000) }
}

/** The VTODO properties read into fields (or written by Hearth itself); the others are kept as written. */
const MAPPED = new Set([
  'DTSTART',
  'DUE',
  'DURATION',
  'COMPLETED',
  'RRULE',
  'EXDATE',
  'SUMMARY',
  'DESCRIPTION',
  'STATUS',
  'PRIORITY',
  'CATEGORIES',
  'DTSTAMP',
  'CREATED',
  'LAST-MODIFIED',
  CUSTOM_FIELD_PROPERTY,
])

function unmapped(vtodo: Component, record: TaskRecord): StoredProperty[] {
  return vtodo.properties
    .filter((p) => !MAPPED.has(p.name) && !p.name.startsWith('X-HEARTH-'))
    .filter((p) => !(record.parent_uid && p.name === 'RELATED-TO' && parentOf({ ...vtodo, properties: [p] }) === record.parent_uid))
    .map((p) => [p.name, [...p.params], p.value] as StoredProperty)
}
