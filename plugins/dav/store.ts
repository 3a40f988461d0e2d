import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../core/plugin-api.js'

/** The dav plugin's tables: object locations, MKCALENDAR's calendars, collection properties and the change log. */
export type Kind = 'card' | 'event' | 'task'
/** The kinds of calendar collection: calendars (VEVENT) and task lists (VTODO). */
export type CalendarKind = 'event' | 'task'
/** The change log's kinds: a collection's objects, or 'invitation' (a member's Invitations collection, invitations.ts). */
export type LogKind = Kind | 'invitation'

export interface ObjectRow {
  record_id: string
  user_id: string
  kind: Kind
  collection: string
  name: string
  /** 1: the object's record; 0: an overridden occurrence under its series' object. */
  main: number
  original: string | null
  original_etag: string | null
}

export interface Change {
  seq: number
  name: string
  deleted: number
}

export function davStore(db: Database.Database) {
  const q = preparedOnUse(db, {
    byRecord: () => db.prepare<[string, string], ObjectRow>('SELECT * FROM dav_objects WHERE user_id = ? AND record_id = ?'),
    byName: () =>
      db.prepare<[string, string, string, string], ObjectRow>(
        'SELECT * FROM dav_objects WHERE user_id = ? AND kind = ? AND collection = ? AND name = ? AND main = 1',
      ),
    ofUser: () =>
      db.prepare<[string, string], ObjectRow>(
        'SELECT record_id, user_id, kind, collection, name, main, NULL AS original, NULL AS original_etag FROM dav_objects WHERE user_id = ? AND kind = ? AND main = 1',
      ),
    upsert: () =>
      db.prepare(
        `INSERT INTO dav_objects (record_id, user_id, kind, collection, name, main, original, original_etag) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(record_id) DO UPDATE SET collection = excluded.collection, name = excluded.name, main = excluded.main,
         original = excluded.original, original_etag = excluded.original_etag WHERE dav_objects.user_id = excluded.user_id`,
      ),
    parts: () =>
      db.prepare<[string, string], { record_id: string }>(
        `SELECT o.record_id FROM dav_objects s JOIN dav_objects o ON o.user_id = s.user_id AND o.kind = s.kind
         AND o.collection = s.collection AND o.name = s.name AND o.main = 0 WHERE s.record_id = ? AND s.user_id = ?`,
      ),
    move: () => db.prepare('UPDATE dav_objects SET collection = ? WHERE user_id = ? AND record_id = ?'),
    forget: () => db.prepare('DELETE FROM dav_objects WHERE user_id = ? AND record_id = ?'),
    log: () => db.prepare('INSERT INTO dav_changes (user_id, kind, collection, name, deleted) VALUES (?, ?, ?, ?, ?)'),
    head: () => db.prepare<[string], { seq: number | null }>('SELECT MAX(seq) AS seq FROM dav_changes WHERE user_id = ?'),
    collectionHead: () =>
      db.prepare<[string, string, string], { seq: number | null }>(
        'SELECT MAX(seq) AS seq FROM dav_changes WHERE user_id = ? AND kind = ? AND collection = ?',
      ),
    reset: () => db.prepare<[string], { seq: number | null }>("SELECT MAX(seq) AS seq FROM dav_changes WHERE user_id = ? AND kind = '*'"),
    // SQLite takes the bare columns of a MAX() aggregate from the row holding the maximum.
    since: () =>
      db.prepare<[string, string, string, number], Change>(
        'SELECT name, MAX(seq) AS seq, deleted FROM dav_changes WHERE user_id = ? AND kind = ? AND collection = ? AND seq > ? GROUP BY name ORDER BY seq',
      ),
    calendars: () => db.prepare<[string, string], { name: string }>('SELECT name FROM dav_calendars WHERE user_id = ? AND kind = ?'),
    addCalendar: () => db.prepare('INSERT OR IGNORE INTO dav_calendars (user_id, kind, name, created_at) VALUES (?, ?, ?, ?)'),
    dropCalendar: () => db.prepare('DELETE FROM dav_calendars WHERE user_id = ? AND kind = ? AND name = ?'),
    props: () =>
      db.prepare<[string, string, string], { prop: string; value: string }>(
        'SELECT prop, value FROM dav_collection_props WHERE user_id = ? AND kind = ? AND collection = ?',
      ),
    setProp: () =>
      db.prepare(
        `INSERT INTO dav_collection_props (user_id, kind, collection, prop, value) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(user_id, kind, collection, prop) DO UPDATE SET value = excluded.value`,
      ),
    removeProp: () => db.prepare('DELETE FROM dav_collection_props WHERE user_id = ? AND kind = ? AND collection = ? AND prop = ?'),
    dropProps: () => db.prepare('DELETE FROM dav_collection_props WHERE user_id = ? AND kind = ? AND collection = ?'),
    invitees: () => db.prepare<[string], string>('SELECT user_id FROM dav_invitations WHERE record_id = ?').pluck(),
    invite: () => db.prepare('INSERT OR IGNORE INTO dav_invitations (record_id, user_id) VALUES (?, ?)'),
    uninvite: () => db.prepare('DELETE FROM dav_invitations WHERE record_id = ? AND user_id = ?'),
  })
  return {
    byRecord: (userId: string, recordId: string) => q.byRecord.get(userId, recordId),
    byName: (userId: string, kind: Kind, collection: string, name: string) => q.byName.get(userId, kind, collection, name),
    /** record id → its row (without the stored originals), for listing a collection. */
    locations: (userId: string, kind: Kind) => new Map(q.ofUser.all(userId, kind).map((r) => [r.record_id, r])),
    place(row: ObjectRow) {
      q.upsert.run(row.record_id, row.user_id, row.kind, row.collection, row.name, row.main, row.original, row.original_etag)
    },
    /** Ids of the overridden occurrences filed under a series' object. */
    parts: (userId: string, seriesId: string) => q.parts.all(seriesId, userId).map((r) => r.record_id),
    move: (userId: string, recordId: string, collection: string) => q.move.run(collection, userId, recordId),
    forget: (userId: string, recordId: string) => q.forget.run(userId, recordId),
    log: (userId: string, kind: LogKind | '*', collection: string, name: string, deleted: boolean) =>
      q.log.run(userId, kind, collection, name, deleted ? 1 : 0),
    /** The user's newest change: the sync token every collection answers now. */
    head: (userId: string) => q.head.get(userId)?.seq ?? 0,
    collectionHead: (userId: string, kind: LogKind, collection: string) => q.collectionHead.get(userId, kind, collection)?.seq ?? 0,
    /** Tokens older than this are refused (a change too large to list happened after them). */
    resetAt: (userId: string) => q.reset.get(userId)?.seq ?? 0,
    /**
     * A collection shared with a member from now on, marked in its owner's change log (a kind of
     * its own: no collection's changes or tag count it). Its sharee's sync tokens from before the
     * mark are refused: the collection's past (what left it before the share) is not theirs to list.
     */
    markShared: (owner: string, withUser: string, kind: Kind, collection: string) =>
      q.log.run(owner, 'share', `${withUser}/${kind}/${collection}`, '', 0),
    /** Where the newest share of this collection with this member began in its owner's change log (0: before the marks). */
    sharedFrom: (owner: string, withUser: string, kind: Kind, collection: string) =>
      q.collectionHead.get(owner, 'share', `${withUser}/${kind}/${collection}`)?.seq ?? 0,
    /** The latest change of each object changed after `seq`, oldest first. */
    since: (userId: string, kind: LogKind, collection: string, seq: number) => q.since.all(userId, kind, collection, seq),
    /** The members an event's Invitations object was last listed for (invitations.ts). */
    invitees: (recordId: string) => q.invitees.all(recordId),
    /** Records (true) or forgets (false) that an event is listed in a member's Invitations. */
    setInvited(recordId: string, userId: string, invited: boolean) {
      ;(invited ? q.invite : q.uninvite).run(recordId, userId)
    },
    /** The calendars (or task lists) made by MKCALENDAR or kept once their records left. */
    calendars: (userId: string, kind: CalendarKind = 'event') => q.calendars.all(userId, kind).map((r) => r.name),
    addCalendar: (userId: string, name: string, at: string, kind: CalendarKind = 'event') =>
      q.addCalendar.run(userId, kind, name, at).changes > 0,
    /** Drops a calendar (or task list) made by MKCALENDAR (or kept once emptied) with the properties a client set on it. */
    dropCalendar: (userId: string, name: string, kind: CalendarKind = 'event') =>
      db.transaction(() => {
        q.dropCalendar.run(userId, kind, name)
        q.dropProps.run(userId, kind, name)
      })(),
    /** The properties a client set on a collection: property key (namespace + name) → value. */
    collectionProps: (userId: string, kind: Kind, collection: string) =>
      new Map(q.props.all(userId, kind, collection).map((r) => [r.prop, r.value])),
    /**
     * Applies a PROPPATCH's changes (null removes) all at once, and with them `before`
     * (MKCALENDAR's creation): one transaction, so a failure stores nothing.
     */
    patchCollection(userId: string, kind: Kind, collection: string, changes: Map<string, string | null>, before?: () => void) {
      db.transaction(() => {
        before?.()
        for (const [prop, value] of changes) {
          if (value === null) q.removeProp.run(userId, kind, collection, prop)
          else q.setProp.run(userId, kind, collection, prop, value)
        }
      })()
    },
  }
}
export type DavStore = ReturnType<typeof davStore>
