import type Database from 'better-sqlite3'
import { HttpError, preparedOnUse } from '../../../core/plugin-api.js'
import type { ListView } from '../engine/list.js'
import type { ApiRecord, ResourceDefinition, ShareKind, SqlClause } from '../engine/types.js'

/**
 * Who may read and write which records: the one place every path of the records plugin asks.
 * Lists, searches, ranged lists and exports take their SQL scope from `scope`; a single record
 * (read by id, written, deleted, restored, created in someone's collection) passes `check`;
 * change events reach `readers`. Nothing here keeps a copy of the shares: each answer is read
 * from records_shares when asked, so an unshare holds from the very next request, event or replay.
 */
export type ShareAccess = 'read' | 'write'
export type RecordAction = 'read' | 'create' | 'update' | 'delete' | 'restore'

export interface Grant {
  owner: string
  target: string
  access: ShareAccess
}

/** What a caller may do with a collection: its owner, a sharee for writing or reading, or nobody. */
export type Level = 'owner' | ShareAccess | null

export class RecordAccess {
  private readonly q

  constructor(db: Database.Database) {
    this.q = preparedOnUse(db, {
      grants: () =>
        db.prepare<[string, string], Grant>(
          'SELECT owner_id AS owner, target, access FROM records_shares WHERE with_user_id = ? AND kind = ? ORDER BY owner_id, target',
        ),
      one: () =>
        db
          .prepare<[string, string, string, string], string>(
            'SELECT access FROM records_shares WHERE with_user_id = ? AND kind = ? AND owner_id = ? AND target = ?',
          )
          .pluck(),
      since: () =>
        db
          .prepare<[string, string, string, string], string>(
            'SELECT created_at FROM records_shares WHERE with_user_id = ? AND kind = ? AND owner_id = ? AND target = ?',
          )
          .pluck(),
      sharees: () =>
        db
          .prepare<[string, string, string], string>(
            'SELECT with_user_id FROM records_shares WHERE owner_id = ? AND kind = ? AND target = ?',
          )
          .pluck(),
      owners: () => db.prepare<[string], string>('SELECT DISTINCT owner_id FROM records_shares WHERE with_user_id = ?').pluck(),
    })
  }

  /** The collection a record belongs to, as a share names it ('' for the address book). */
  static target(def: ResourceDefinition, record: Record<string, unknown>): string {
    const column = def.sharing?.column
    return column ? String(record[column] ?? '') : ''
  }

  /** The collections of this kind shared with `caller`. */
  grants(caller: string, kind: ShareKind): Grant[] {
    return this.q.grants.all(caller, kind)
  }

  /** What `caller` may do with `owner`'s collection `target` of this resource. */
  level(caller: string, def: ResourceDefinition, owner: string, target: string): Level {
    if (owner === caller) return 'owner'
    if (!def.sharing) return null
    return (this.q.one.get(caller, def.sharing.kind, owner, target) as ShareAccess | undefined) ?? null
  }

  /**
   * Whether `caller` may read `record` (a stored record, or an event's data: `owner_id` and its
   * collection). With `at` (when a change event happened), only if the collection was already
   * shared with them then: a share opens the collection from its making on, never its past (a
   * replay from an old cursor must not hand over a note's earlier drafts, or an event that sat in
   * the calendar before the share and has left it since).
   */
  mayRead(caller: string, def: ResourceDefinition, record: Record<string, unknown>, at?: string): boolean {
    if (typeof record.owner_id !== 'string') return false
    if (record.owner_id === caller) return true
    if (!def.sharing) return false
    const since = this.q.since.get(caller, def.sharing.kind, record.owner_id, RecordAccess.target(def, record))
    return since !== undefined && (at === undefined || since <= at)
  }

  /**
   * Throws unless `caller` may do `action` to `record` (as stored, or as a create or an update
   * would store it: `owner_id` set). A record the caller may not read is not found for them
   * (404, like another member's record always was); one they read but may not change: 403.
   * A note shared for writing is edited by its sharees and deleted (or restored) by its owner only.
   */
  check(caller: string, def: ResourceDefinition, record: Record<string, unknown>, action: RecordAction): void {
    const level = this.level(caller, def, String(record.owner_id), RecordAccess.target(def, record))
    if (level === 'owner' || (level !== null && action === 'read')) return
    const what = def.singular
    if (level === null) {
      if (action === 'create') throw new HttpError('FORBIDDEN', `That ${collectionOf(def)} is not shared with you for writing`)
      throw new HttpError('NOT_FOUND', `${what[0]?.toUpperCase()}${what.slice(1)} not found`)
    }
    if (level === 'read') throw new HttpError('FORBIDDEN', `This ${collectionOf(def)} is shared with you for reading only`)
    if (def.sharing?.kind === 'note' && (action === 'delete' || action === 'restore'))
      throw new HttpError('FORBIDDEN', 'Only its owner deletes or restores a shared note')
  }

  /**
   * What a list of `caller`'s readable records reads: their own rows, or also those of the
   * collections shared with them (`own`: their own only, `?owner=me`), as one SQL condition, and
   * the same rule in code for the records it brings (`visible`, absent when only their own). The
   * shares are bound as values, so SQLite reads each arm through the owner's index, and a cached
   * result under another set of shares is another query (query-cache.ts keys by SQL and values).
   */
  view(caller: string, def: ResourceDefinition, own = false): ListView {
    const mine: SqlClause = { sql: 't.user_id = ?', params: [caller], state: {} }
    if (own || !def.sharing) return { userId: caller, scope: mine }
    const grants = this.grants(caller, def.sharing.kind)
    if (grants.length === 0) return { userId: caller, scope: mine }
    const column = def.sharing.column
    const granted = new Set(grants.map((g) => `${g.owner}\u0000${column === null ? '' : g.target}`))
    const visible = (r: ApiRecord) => r.owner_id === caller || granted.has(`${String(r.owner_id)}\u0000${RecordAccess.target(def, r)}`)
    const byOwner = new Map<string, string[]>()
    for (const g of grants) byOwner.set(g.owner, [...(byOwner.get(g.owner) ?? []), g.target])
    const terms: string[] = ['t.user_id = ?']
    const params: unknown[] = [caller]
    for (const [owner, targets] of byOwner) {
      if (column === null) terms.push('t.user_id = ?')
      else terms.push(`(t.user_id = ? AND t.${column} IN (${targets.map(() => '?').join(', ')}))`)
      params.push(owner, ...(column === null ? [] : targets))
    }
    return { userId: caller, scope: { sql: `(${terms.join(' OR ')})`, params }, visible }
  }

  /** Everyone who may read `record` now: its owner, then the members its collection is shared with. */
  readers(def: ResourceDefinition, record: Record<string, unknown>): string[] {
    const owner = String(record.owner_id)
    if (!def.sharing) return [owner]
    return [owner, ...this.q.sharees.all(owner, def.sharing.kind, RecordAccess.target(def, record))]
  }

  /** The members who share at least one collection with `caller`. */
  ownersSharingWith(caller: string): string[] {
    return this.q.owners.all(caller)
  }
}

/** 'calendar', 'address book', 'task list', 'note': what a message names. */
export function collectionOf(def: ResourceDefinition): string {
  const kind = def.sharing?.kind
  return kind === 'addressbook' ? 'address book' : kind === 'tasklist' ? 'task list' : (kind ?? def.singular)
}
