import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../../core/plugin-api.js'

/**
 * The store of format properties Hearth has no field for, one row per record
 * (migration 003): filled by imports, read by exports. Scoped by user like
 * every query; removed with its record by a trigger.
 */
export type StoredParams = Array<[string, string[]]>
/** [name, params, value] of one content line, value as the file wrote it (escaped). */
export type StoredProperty = [string, StoredParams, string]

/** Bounds: what one record may keep (a client writing more is trimmed, never refused). */
export const MAX_PROPERTIES = 100
export const MAX_PROPERTY_BYTES = 8 * 1024

export interface PropertyStore {
  /** Replaces a record's kept lines; none removes them. */
  set(userId: string, resource: string, recordId: string, lines: StoredProperty[]): void
  /** The kept lines of some records (recordId → lines; records keeping none are absent). */
  of(userId: string, resource: string, recordIds: readonly string[]): Map<string, StoredProperty[]>
  /** recordId → lines, for an export of one user's resource. */
  forUser(userId: string, resource: string): Map<string, StoredProperty[]>
  /** The user's records of a resource that kept a property with this exact value (e.g. a UID). */
  recordsWith(userId: string, resource: string, name: string, value: string): string[]
}

export function propertyStore(db: Database.Database): PropertyStore {
  const q = preparedOnUse(db, {
    upsert: () =>
      db.prepare(
        'INSERT INTO records_properties (record_id, user_id, resource, lines, uid) VALUES (?, ?, ?, ?, ?) ' +
          'ON CONFLICT(record_id) DO UPDATE SET lines = excluded.lines, uid = excluded.uid WHERE records_properties.user_id = excluded.user_id',
      ),
    drop: 'DELETE FROM records_properties WHERE record_id = ? AND user_id = ?',
    one: () =>
      db.prepare<[string, string, string], { lines: string }>(
        'SELECT lines FROM records_properties WHERE record_id = ? AND user_id = ? AND resource = ?',
      ),
    all: () =>
      db.prepare<[string, string], { record_id: string; lines: string }>(
        'SELECT record_id, lines FROM records_properties WHERE user_id = ? AND resource = ?',
      ),
    byUid: () =>
      db.prepare<[string, string, string], { record_id: string }>(
        'SELECT record_id FROM records_properties WHERE user_id = ? AND resource = ? AND uid = ?',
      ),
    having: () =>
      db.prepare<[string, string, string, string], { record_id: string }>(
        'SELECT DISTINCT p.record_id FROM records_properties p, json_each(p.lines) j ' +
          "WHERE p.user_id = ? AND p.resource = ? AND json_extract(j.value, '$[0]') = ? AND json_extract(j.value, '$[2]') = ?",
      ),
  })
  return {
    recordsWith: (userId, resource, name, value) =>
      // UID, what clients name records by, has its own indexed column; any other name is looked for line by line.
      (name === 'UID' ? q.byUid.all(userId, resource, value) : q.having.all(userId, resource, name, value)).map((r) => r.record_id),
    set(userId, resource, recordId, lines) {
      const kept = bounded(lines)
      if (kept.length) q.upsert.run(recordId, userId, resource, JSON.stringify(kept), uidOf(kept))
      else q.drop.run(recordId, userId)
    },
    of(userId, resource, recordIds) {
      const out = new Map<string, StoredProperty[]>()
      for (const id of recordIds) {
        const row = q.one.get(id, userId, resource)
        if (row) out.set(id, JSON.parse(row.lines) as StoredProperty[])
      }
      return out
    },
    forUser(userId, resource) {
      return new Map(q.all.all(userId, resource).map((r) => [r.record_id, JSON.parse(r.lines) as StoredProperty[]]))
    },
  }
}

/** The first UID line's value, as the lookup by UID finds it. */
function uidOf(lines: StoredProperty[]): string | null {
  const line = lines.find((l) => l[0] === 'UID')
  return typeof line?.[2] === 'string' ? line[2] : null
}

function bounded(lines: StoredProperty[]): StoredProperty[] {
  return lines.filter((l) => JSON.stringify(l).length <= MAX_PROPERTY_BYTES).slice(0, MAX_PROPERTIES)
}
