import type Database from 'better-sqlite3'
import { HttpError } from '../../../core/plugin-api.js'
import { ifMatchHolds } from '../../../lib/etag.js'
import { preconditionFailed } from '../engine/etag.js'
import type { StoredProperty } from '../engine/properties.js'
import type { ApiRecord, ImportResult, RecordsService, WriteOptions } from '../service.js'
import { occurrences, type Recurrence } from '../../../lib/ical/recurrence.js'

/**
 * One occurrence of a series versus the whole series (RFC 5545 RECURRENCE-ID,
 * EXDATE, and the split CalDAV clients do for "this and following"):
 *
 *   PATCH ?scope=this       an override replaces that occurrence (made once, edited after)
 *   PATCH ?scope=following  the series ends before it; a new series starts there with the change
 *   DELETE ?scope=this      the start joins the series' exdates (its override goes too)
 *   DELETE ?scope=following the series ends before it (from its first start: the whole series)
 *
 * `occurrence_start` names the occurrence by its start in the series (an ISO instant).
 * `ifMatch` is compared with the series' ETag; the whole change then runs in one immediate
 * transaction, so no other write lands between the comparison and the last write.
 */
export type OccurrenceScope = 'this' | 'following'

/** The fields a new series or an override copies from its series (the create body's fields). */
const COPIED = [
  'title',
  'description',
  'location',
  'all_day',
  'status',
  'calendar_name',
  'timezone',
  'reminders',
  'attendees',
  'custom_fields',
] as const

/** A parsed iCalendar entry: an override names its series by `series_uid` until linked. */
export interface ImportEntry {
  record: Record<string, unknown>
  properties?: StoredProperty[]
}

export interface EventOccurrences {
  /**
   * Imports events with their overridden occurrences: series and plain events first, then each
   * override linked to the series of its UID in the same file (a cancelled one becomes an exdate).
   * Failures carry the entry's index in `entries`.
   */
  importAll(userId: string, entries: ImportEntry[], opts: { source?: string | null; emit?: boolean }): ImportResult
  update(
    userId: string,
    seriesId: string,
    occurrenceStart: string,
    scope: OccurrenceScope,
    patch: Record<string, unknown>,
    opts?: WriteOptions,
  ): ApiRecord
  remove(userId: string, seriesId: string, occurrenceStart: string, scope: OccurrenceScope, opts?: WriteOptions): ApiRecord
}

export function eventOccurrences(service: RecordsService, db: Database.Database): EventOccurrences {
  const overridesOf = db.prepare<[string, string], { id: string; occurrence_start: string }>(
    'SELECT id, occurrence_start FROM events WHERE user_id = ? AND recurrence_id = ?',
  )

  const zoneOf = (series: ApiRecord) => (series.all_day ? 'UTC' : String(series.timezone ?? 'UTC'))

  /** The series and the occurrence, checked: it is one of the series' starts (or an override already replaces it). */
  const locate = (userId: string, seriesId: string, occurrenceStart: string, ifMatch: string | undefined) => {
    const series = service.get(userId, 'events', seriesId)
    if (ifMatch !== undefined && !ifMatchHolds(ifMatch, series.etag as string)) throw preconditionFailed(series.etag as string)
    const rule = series.recurrence as Recurrence | null
    if (!rule) throw new HttpError('UNPROCESSABLE', 'scope applies to a recurring event (this one does not repeat)', { field: 'scope' })
    const at = Date.parse(occurrenceStart)
    if (Number.isNaN(at)) throw invalidStart()
    const override = overridesOf.all(String(series.owner_id), seriesId).find((o) => Date.parse(o.occurrence_start) === at) ?? null
    const start = Date.parse(String(series.start_at))
    if (!override && occurrences(rule, start, at, at, 1, zoneOf(series))[0] !== at) throw invalidStart()
    return { series, rule, at, start, override }
  }

  /** The rule of the part before `at`: it ends just before, COUNT turned into that end. */
  const endBefore = (rule: Recurrence, at: number): Recurrence => {
    const { count: _count, exdates, ...rest } = rule
    const before = (exdates ?? []).filter((x) => Date.parse(x) < at)
    return { ...rest, until: new Date(at - 1).toISOString(), ...(before.length ? { exdates: before } : {}) }
  }

  /** The rule of the part from `at`: what COUNT has left, the exdates from there. */
  const startAt = (rule: Recurrence, start: number, at: number, zone: string): Recurrence => {
    const { count, exdates, ...rest } = rule
    const used = count ? occurrences({ ...rest, count }, start, start, at - 1, count, zone).length : 0
    const after = (exdates ?? []).filter((x) => Date.parse(x) >= at)
    return { ...rest, ...(count ? { count: Math.max(1, count - used) } : {}), ...(after.length ? { exdates: after } : {}) }
  }

  const length = (series: ApiRecord) => (series.end_at ? Date.parse(String(series.end_at)) - Date.parse(String(series.start_at)) : null)

  /** The series' fields at one occurrence, with the change applied; a moved start keeps the series' length. */
  const copy = (series: ApiRecord, at: number, patch: Record<string, unknown>): Record<string, unknown> => {
    const body: Record<string, unknown> = Object.fromEntries(COPIED.map((k) => [k, series[k]]))
    // The new series or override is the series owner's, whoever (sharing that calendar for writing) changes it.
    body.owner_id = series.owner_id
    const span = length(series)
    const start = typeof patch.start_at === 'string' ? Date.parse(patch.start_at) : at
    body.start_at = new Date(at).toISOString()
    body.end_at = span === null || Number.isNaN(start) ? null : new Date(start + span).toISOString()
    return { ...body, ...patch }
  }

  /** An override: created through the import path, the only one that may set recurrence_id. */
  const createOverride = (userId: string, entry: Record<string, unknown>): ApiRecord => {
    const { created: [record] = [], failed } = service.importMany(userId, 'events', [entry])
    if (!record) throw failed[0]?.error ?? new HttpError('INTERNAL_ERROR')
    return record
  }

  const entryOf = ({ record, properties }: ImportEntry): Record<string, unknown> => {
    const { series_uid: _uid, ...body } = record
    return properties?.length ? { ...body, properties } : body
  }
  const uidOf = (entry: ImportEntry) => entry.properties?.find(([name]) => name === 'UID')?.[2]

  /**
   * A series of this user's own that they imported before (its UID kept) or Hearth exported
   * (`<id>@hearth`): the newest still repeating. Never another member's, even shared: an import
   * writes into the importer's own calendars only (an override or an exclusion of someone else's series
   * is not theirs to add).
   */
  const earlierSeries = (userId: string, uid: string): ApiRecord | undefined => {
    const own = /^([0-9a-f-]{36})@hearth$/.exec(uid)?.[1]
    const ids = [...(own ? [own] : []), ...service.recordsWithProperty(userId, 'events', 'UID', uid)]
    for (const id of ids.reverse()) {
      try {
        const record = service.get(userId, 'events', id)
        if (record.recurrence && record.owner_id === userId) return record
      } catch (err) {
        // Gone or in the trash: not a series to link to.
        if (!(err instanceof HttpError)) throw err
      }
    }
    return undefined
  }

  return {
    importAll(userId, entries, opts) {
      const plain: number[] = []
      const overrides: number[] = []
      entries.forEach((e, i) => (e.record.series_uid ? overrides : plain).push(i))
      const first = service.importMany(
        userId,
        'events',
        plain.map((i) => entryOf(entries[i] as ImportEntry)),
        opts,
      )
      const refused = new Set(first.failed.map((f) => f.index))
      const seriesByUid = new Map<string, ApiRecord>()
      let made = 0
      plain.forEach((i, position) => {
        if (refused.has(position)) return
        const record = first.created[made++] as ApiRecord
        const uid = uidOf(entries[i] as ImportEntry)
        if (uid && record.recurrence) seriesByUid.set(uid, record)
      })
      const failed: ImportResult['failed'] = first.failed.map((f) => ({ index: plain[f.index] as number, error: f.error }))
      const linked: Array<{ index: number; entry: Record<string, unknown> }> = []
      for (const i of overrides) {
        const entry = entries[i] as ImportEntry
        const uid = String(entry.record.series_uid)
        const series = seriesByUid.get(uid) ?? earlierSeries(userId, uid)
        if (!series) {
          failed.push({
            index: i,
            error: new HttpError(
              'VALIDATION_ERROR',
              'modified occurrence (RECURRENCE-ID) whose series is neither in this file nor imported before',
              {
                field: 'RECURRENCE-ID',
                constraint: 'series',
              },
            ),
          })
        } else if (entry.record.status === 'cancelled') {
          // A cancelled occurrence is an exclusion of the series (what clients show: nothing).
          const rule = series.recurrence as Recurrence
          const exdates = [...new Set([...(rule.exdates ?? []), String(entry.record.occurrence_start)])]
          const updated = service.update(userId, 'events', series.id as string, { recurrence: { ...rule, exdates } })
          seriesByUid.set(uid, updated)
        } else linked.push({ index: i, entry: { ...entryOf(entry), recurrence_id: series.id } })
      }
      const second = service.importMany(
        userId,
        'events',
        linked.map((l) => l.entry),
        opts,
      )
      for (const f of second.failed) failed.push({ index: linked[f.index]?.index as number, error: f.error })
      return { created: [...first.created, ...second.created], failed: failed.sort((a, b) => a.index - b.index) }
    },

    update(userId, seriesId, occurrenceStart, scope, patch, opts = {}) {
      return db.transaction(() => updateOccurrence(userId, seriesId, occurrenceStart, scope, patch, opts)).immediate()
    },

    remove(userId, seriesId, occurrenceStart, scope, opts = {}) {
      return db.transaction(() => removeOccurrence(userId, seriesId, occurrenceStart, scope, opts)).immediate()
    },
  }

  function updateOccurrence(
    userId: string,
    seriesId: string,
    occurrenceStart: string,
    scope: OccurrenceScope,
    patch: Record<string, unknown>,
    opts: WriteOptions,
  ): ApiRecord {
    const { series, rule, at, start, override } = locate(userId, seriesId, occurrenceStart, opts.ifMatch)
    if (scope === 'this') {
      if (override) return service.update(userId, 'events', override.id, patch)
      const marker = { recurrence_id: series.id, occurrence_start: new Date(at).toISOString() }
      return createOverride(userId, { ...copy(series, at, patch), recurrence: null, ...marker })
    }
    if (at === start) return service.update(userId, 'events', seriesId, patch)
    const zone = zoneOf(series)
    const next = service.create(userId, 'events', { ...copy(series, at, { recurrence: startAt(rule, start, at, zone), ...patch }) })
    service.update(userId, 'events', seriesId, { recurrence: endBefore(rule, at) })
    // Overrides of the moved part follow it.
    for (const o of overridesOf.all(String(series.owner_id), seriesId)) {
      if (Date.parse(o.occurrence_start) >= at) service.setExtras(userId, 'events', o.id, { recurrence_id: next.id })
    }
    return next
  }

  function removeOccurrence(
    userId: string,
    seriesId: string,
    occurrenceStart: string,
    scope: OccurrenceScope,
    opts: WriteOptions,
  ): ApiRecord {
    const { series, rule, at, start, override } = locate(userId, seriesId, occurrenceStart, opts.ifMatch)
    if (scope === 'this') {
      if (override) service.remove(userId, 'events', override.id, { permanent: true })
      const exdates = [...new Set([...(rule.exdates ?? []), new Date(at).toISOString()])]
      return service.update(userId, 'events', seriesId, { recurrence: { ...rule, exdates } })
    }
    if (at === start) return service.remove(userId, 'events', seriesId) as ApiRecord
    for (const o of overridesOf.all(String(series.owner_id), seriesId)) {
      if (Date.parse(o.occurrence_start) >= at) service.remove(userId, 'events', o.id, { permanent: true })
    }
    return service.update(userId, 'events', seriesId, { recurrence: endBefore(rule, at) })
  }
}

const invalidStart = () =>
  new HttpError('UNPROCESSABLE', 'occurrence_start is not the start of an occurrence of this series', {
    field: 'occurrence_start',
    constraint: 'occurrence',
  })
