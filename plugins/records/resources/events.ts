import { Type } from '@sinclair/typebox'
import { HttpError, Nullable, StringEnum, Timestamp, Uuid } from '../../../core/plugin-api.js'
import { createSchema, Email, NullableText, patchSchema, recordSchema } from '../engine/schema-kit.js'
import type { ResourceDefinition, SqlClause } from '../engine/types.js'
import { examples } from './examples.js'
import { invalid } from '../engine/validate.js'
import { queryWindow } from './event-window.js'
import { occurrences, type Recurrence as Rule } from '../../../lib/ical/recurrence.js'
import { isZone } from '../../../lib/timezone/wall-clock.js'
import { checkRecurrence, Recurrence } from './recurrence.js'
import { BIRTHDAYS } from './birthdays.js'

/** Calendar events (api.md, Calendar event), with recurrence expanded in ranged lists. */

const HOUR = 3_600_000
export const Reminder = Type.Object(
  { type: StringEnum(['notification', 'email'] as const), minutes_before: Type.Integer({ minimum: 0, maximum: 525_600 }) },
  { additionalProperties: false },
)
const AttendeeStatus = StringEnum(['accepted', 'declined', 'tentative', 'pending'] as const)
const attendee = (complete: boolean) =>
  Type.Object(
    complete
      ? { email: Type.String(), name: Nullable(Type.String()), status: AttendeeStatus }
      : {
          email: Email,
          name: Type.Optional(NullableText(300)),
          status: Type.Optional(AttendeeStatus),
        },
    { additionalProperties: false },
  )

const fields = (complete: boolean) => ({
  title: Type.String({ minLength: 1, maxLength: 500 }),
  description: NullableText(100_000),
  location: NullableText(1000),
  start_at: Timestamp,
  end_at: Nullable(Timestamp),
  all_day: Type.Boolean(),
  recurrence: Nullable(Recurrence),
  status: StringEnum(['confirmed', 'tentative', 'cancelled'] as const),
  calendar_name: Type.String({ minLength: 1, maxLength: 200 }),
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "IANA time zone the event's wall-clock times and recurrence hold in (default: the instance's HEARTH_TIMEZONE)",
  }),
  reminders: Type.Array(Reminder, { maxItems: 50 }),
  attendees: Type.Array(attendee(complete), { maxItems: 500 }),
})

const iso = (v: unknown) => new Date(String(v)).toISOString()

/**
 * An occurrence's markers (RFC 5545 RECURRENCE-ID): on an item a window expands, and on a
 * stored override that replaces one occurrence. Null on a plain event and on a series.
 */
const overrideFields = {
  recurrence_id: Nullable(Type.String({ format: 'uuid', description: 'the series this occurrence belongs to' })),
  occurrence_start: Nullable(Type.String({ format: 'date-time', description: 'the start of the occurrence in the series' })),
}
const asDate = (v: unknown) => `${String(v).slice(0, 10)}T00:00:00.000Z`

/** All-day events are dates: they repeat on their UTC date and never shift with a zone. */
const expansionZone = (series: Record<string, unknown>) => (series.all_day ? 'UTC' : String(series.timezone ?? 'UTC'))

export const events: ResourceDefinition = {
  name: 'events',
  singular: 'event',
  columns: {
    title: 'text',
    description: 'text',
    location: 'text',
    start_at: 'text',
    end_at: 'text',
    all_day: 'bool',
    recurrence: 'json',
    status: 'text',
    calendar_name: 'text',
    timezone: 'text',
    recurrence_id: 'text',
    occurrence_start: 'text',
    reminders: 'json',
    attendees: 'json',
    custom_fields: 'json',
  },
  sharing: { kind: 'calendar', column: 'calendar_name' },
  invitations: true,
  fts: { table: 'events_fts', weights: [10, 1] },
  schemas: {
    record: recordSchema({ ...fields(true), ...overrideFields }, examples.events.record),
    create: createSchema(fields(false), ['title', 'start_at'], examples.events.create),
    patch: patchSchema(fields(false)),
    listFilters: Type.Object({
      date: Type.String({ pattern: '^(today|tomorrow|this_week|this_month|\\d{4}-\\d{2}-\\d{2})$' }),
      from: Type.String({ minLength: 10, maxLength: 40, description: 'datetime (or YYYY-MM-DD): events starting at or after' }),
      to: Type.String({
        minLength: 10,
        maxLength: 40,
        description: 'datetime (or YYYY-MM-DD, whole day): events starting up to and including',
      }),
      calendar_name: Type.String({ minLength: 1, maxLength: 200 }),
      status: StringEnum(['confirmed', 'tentative', 'cancelled'] as const),
    }),
    compact: Type.Object({
      id: Uuid,
      title: Type.String(),
      start_at: Timestamp,
      end_at: Type.Optional(Timestamp),
      all_day: Type.Boolean(),
      location: Type.Optional(Type.String()),
      status: Type.String(),
    }),
  },
  sort: { keys: ['start_at', 'created_at', 'updated_at', 'title'], default: 'start_at', order: 'asc', nocase: ['title'] },
  defaults: {
    description: null,
    location: null,
    end_at: null,
    all_day: false,
    recurrence: null,
    status: 'confirmed',
    calendar_name: 'default',
    reminders: [],
    attendees: [],
    custom_fields: null,
    recurrence_id: null,
    occurrence_start: null,
  },
  // An override is made by PATCH ?scope=this or an import (RECURRENCE-ID), never by a create body.
  importExtras: { recurrence_id: Uuid, occurrence_start: Timestamp },
  complete(record, changed, previous, ctx) {
    if (record.calendar_name === BIRTHDAYS) {
      throw new HttpError(
        'FORBIDDEN',
        "The birthdays calendar is read-only: it shows contacts' birthdays and anniversaries (edit the contact)",
        {
          field: 'calendar_name',
          constraint: 'read_only',
        },
      )
    }
    record.timezone ??= ctx.zone
    // All-day events are dates: the day as written, whatever offset came with it.
    if (record.all_day) {
      record.start_at = asDate(record.start_at)
      if (record.end_at) record.end_at = asDate(record.end_at)
    }
    if (!isZone(String(record.timezone))) throw invalid('timezone', 'zone', 'timezone must be an IANA time zone name such as Europe/Paris')
    record.start_at = iso(record.start_at)
    if (record.end_at) record.end_at = iso(record.end_at)
    // Moving an event keeps its length unless a new end is given.
    if (previous && changed.has('start_at') && !changed.has('end_at') && previous.end_at) {
      const length = Date.parse(String(previous.end_at)) - Date.parse(String(previous.start_at))
      record.end_at = new Date(Date.parse(record.start_at as string) + length).toISOString()
    }
    if (!record.end_at && !record.all_day) record.end_at = new Date(Date.parse(record.start_at as string) + HOUR).toISOString()
    if (record.end_at && Date.parse(record.end_at as string) < Date.parse(record.start_at as string)) {
      throw invalid('end_at', 'after_start_at', 'end_at must not be before start_at')
    }
    checkRecurrence(record.recurrence as Rule | null)
    if (record.recurrence_id && record.recurrence) {
      throw invalid('recurrence', 'override', 'an overridden occurrence does not repeat itself (recurrence must be null)')
    }
    record.attendees = (record.attendees as Array<Record<string, unknown>>).map((a) => ({ name: null, status: 'pending', ...a }))
  },
  filters(query) {
    // An override lists while its series does: a series in the trash takes its overrides out of view.
    const out: SqlClause[] = [
      {
        sql: 'NOT EXISTS (SELECT 1 FROM events s WHERE s.id = t.recurrence_id AND s.user_id = t.user_id AND s.deleted_at IS NOT NULL)',
        params: [],
      },
    ]
    if (query.calendar_name !== undefined) out.push({ sql: 't.calendar_name = ?', params: [query.calendar_name] })
    if (query.status !== undefined) out.push({ sql: 't.status = ?', params: [query.status] })
    return out
  },
  compact(r) {
    return { id: r.id, title: r.title, start_at: r.start_at, end_at: r.end_at, all_day: r.all_day, location: r.location, status: r.status }
  },
  expansion: {
    column: 'start_at',
    repeatingSql: 't.recurrence IS NOT NULL',
    window: (query, ctx) => queryWindow(query, ctx.now, ctx.zone),
    starts: (series, window, limit) =>
      occurrences(series.recurrence as Rule, Date.parse(String(series.start_at)), window.from, window.to, limit, expansionZone(series)),
    overrides: { seriesColumn: 'recurrence_id', startColumn: 'occurrence_start' },
    occurrence(series, at) {
      const start = Date.parse(String(series.start_at))
      const startAt = new Date(at).toISOString()
      return {
        ...series,
        start_at: startAt,
        end_at: series.end_at ? new Date(at + Date.parse(String(series.end_at)) - start).toISOString() : null,
        recurrence_id: series.id,
        occurrence_start: startAt,
      }
    },
  },
  listItem: recordSchema({ ...fields(true), ...overrideFields }),
}
