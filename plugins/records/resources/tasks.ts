import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp, Uuid } from '../../../core/plugin-api.js'
import { isZone } from '../../../lib/timezone/wall-clock.js'
import { createSchema, NullableText, patchSchema, recordSchema, Tags } from '../engine/schema-kit.js'
import type { Recurrence as Rule } from '../../../lib/ical/recurrence.js'
import type { ResourceDefinition, SqlClause } from '../engine/types.js'
import { invalid } from '../engine/validate.js'
import { bound } from './event-window.js'
import { Reminder } from './events.js'
import { examples } from './examples.js'
import { checkRecurrence, Recurrence } from './recurrence.js'
import { nextRound } from './task-rounds.js'

/**
 * Tasks (VTODO): a title, a status with its completion time, due and start times, an RFC 5545
 * priority, a list, a parent task, tags, a recurrence that completing moves forward, reminders.
 */

export const TASK_STATUSES = ['needs-action', 'in-process', 'completed', 'cancelled'] as const

const fields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  description: NullableText(100_000),
  status: StringEnum(TASK_STATUSES, { description: 'completed sets completed_at; leaving it clears completed_at' }),
  due_at: Nullable(Timestamp),
  start_at: Nullable(Timestamp),
  all_day: Type.Boolean({ description: 'due_at and start_at are dates (midnight UTC of the day as written), as all-day events' }),
  completed_at: Nullable(Timestamp),
  priority: Type.Integer({ minimum: 0, maximum: 9, description: 'RFC 5545: 1 highest, 9 lowest, 0 none' }),
  list_name: Type.String({ minLength: 1, maxLength: 200 }),
  parent_id: Nullable(Uuid),
  tags: Tags,
  recurrence: Nullable(Recurrence),
  reminders: Type.Array(Reminder, { maxItems: 50, description: 'minutes before due_at (before start_at when there is no due_at)' }),
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "IANA time zone the task's wall-clock times and recurrence hold in (default: the instance's HEARTH_TIMEZONE)",
  }),
}

const iso = (v: unknown) => new Date(String(v)).toISOString()
const asDate = (v: unknown) => `${String(v).slice(0, 10)}T00:00:00.000Z`
const when = (name: string) =>
  Type.String({ minLength: 10, maxLength: 40, description: `datetime (or YYYY-MM-DD, ${name === 'after' ? 'its start' : 'its end'})` })

export const tasks: ResourceDefinition = {
  name: 'tasks',
  singular: 'task',
  columns: {
    title: 'text',
    description: 'text',
    status: 'text',
    due_at: 'text',
    start_at: 'text',
    all_day: 'bool',
    completed_at: 'text',
    priority: 'integer',
    list_name: 'text',
    parent_id: 'text',
    tags: 'json',
    recurrence: 'json',
    reminders: 'json',
    timezone: 'text',
    custom_fields: 'json',
  },
  sharing: { kind: 'tasklist', column: 'list_name' },
  fts: { table: 'tasks_fts', weights: [10, 1] },
  schemas: {
    record: recordSchema(fields, examples.tasks.record),
    create: createSchema(fields, ['title'], examples.tasks.create),
    patch: patchSchema(fields),
    listFilters: Type.Object({
      status: Type.Array(StringEnum(TASK_STATUSES), { maxItems: 4, description: 'repeatable: tasks in any of these states' }),
      list_name: Type.String({ minLength: 1, maxLength: 200 }),
      due_before: when('before'),
      due_after: when('after'),
      tag: Type.Array(Type.String({ minLength: 1 }), { maxItems: 20, description: 'exact tag; repeatable, combined with AND' }),
      parent_id: Uuid,
    }),
    compact: Type.Object({
      id: Uuid,
      title: Type.String(),
      status: Type.String(),
      due_at: Type.Optional(Timestamp),
      priority: Type.Integer(),
      list_name: Type.String(),
      tags: Type.Optional(Type.Array(Type.String())),
      parent_id: Type.Optional(Uuid),
    }),
  },
  sort: {
    keys: ['due_at', 'priority', 'created_at', 'updated_at', 'title'],
    default: 'due_at',
    order: 'asc',
    nocase: ['title'],
    // Tasks without a due date, and without a priority (0), come after the others in either order.
    nullable: ['due_at', 'priority'],
    expressions: { priority: (t) => `nullif(${t}.priority, 0)` },
  },
  rowLocalFilters: true,
  defaults: {
    description: null,
    status: 'needs-action',
    due_at: null,
    start_at: null,
    all_day: false,
    completed_at: null,
    priority: 0,
    list_name: 'default',
    parent_id: null,
    tags: [],
    recurrence: null,
    reminders: [],
    custom_fields: null,
  },
  references: { parent_id: { resource: 'tasks', acyclic: true } },
  complete(record, changed, previous, ctx) {
    record.timezone ??= ctx.zone
    if (!isZone(String(record.timezone))) throw invalid('timezone', 'zone', 'timezone must be an IANA time zone name such as Europe/Paris')
    for (const key of ['due_at', 'start_at'] as const) {
      if (record[key]) record[key] = record.all_day ? asDate(record[key]) : iso(record[key])
    }
    if (record.due_at && record.start_at && Date.parse(String(record.due_at)) < Date.parse(String(record.start_at))) {
      throw invalid('due_at', 'after_start_at', 'due_at must not be before start_at')
    }
    checkRecurrence(record.recurrence as Rule | null)
    if (record.recurrence && !record.due_at && !record.start_at) {
      throw invalid('recurrence', 'requires_due_at', 'a recurring task needs due_at (or start_at) to repeat from')
    }
    // completed_at follows the status: kept while completed (or the time given), cleared otherwise.
    if (record.status !== 'completed') record.completed_at = null
    else if (changed.has('completed_at') && record.completed_at) record.completed_at = iso(record.completed_at)
    else if (previous?.status !== 'completed' || !record.completed_at) record.completed_at = new Date(ctx.now).toISOString()
  },
  filters(query, ctx) {
    const out: SqlClause[] = []
    const statuses = query.status as string[] | undefined
    if (statuses?.length)
      out.push({ sql: 't.status IN (SELECT value FROM json_each(?))', params: [JSON.stringify([...new Set(statuses)])] })
    if (query.list_name !== undefined) out.push({ sql: 't.list_name = ?', params: [query.list_name] })
    if (typeof query.due_after === 'string') {
      out.push({ sql: 't.due_at >= ?', params: [new Date(bound(query.due_after, 'from', ctx.zone, 'due_after')).toISOString()] })
    }
    if (typeof query.due_before === 'string') {
      out.push({ sql: 't.due_at <= ?', params: [new Date(bound(query.due_before, 'to', ctx.zone, 'due_before')).toISOString()] })
    }
    if (query.parent_id !== undefined) out.push({ sql: 't.parent_id = ?', params: [query.parent_id] })
    return out
  },
  compact(r) {
    return {
      id: r.id,
      title: r.title,
      status: r.status,
      due_at: r.due_at,
      priority: r.priority,
      list_name: r.list_name,
      tags: r.tags,
      parent_id: r.parent_id,
    }
  },
  actions: {
    complete: {
      summary: 'Complete a task',
      description:
        'Sets status completed and completed_at. A recurring task moves to its next due date instead (RFC 5545: the rule runs from the current due date; a count counts down), and is completed for good after its last one.',
      apply(record) {
        if (record.status === 'completed') return null
        return nextRound(record) ?? { status: 'completed' }
      },
    },
    reopen: {
      summary: 'Reopen a completed or cancelled task',
      description: 'Sets status needs-action and clears completed_at.',
      apply: (record) => (record.status === 'completed' || record.status === 'cancelled' ? { status: 'needs-action' } : null),
    },
  },
}
