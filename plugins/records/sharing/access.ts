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
/** `answer`: an attendee's reply to an invitation (their own attendee entry, nothing else). */
export type RecordAction = 'read' | 'create' | 'update' | 'delete' | 'restore' | 'answer'

export interface Grant {
  owner: string
  target: string
  access: ShareAccess
}

/** What a caller may do with a collection: its owner, a sharee for writing or reading, or nobody. */
export type CollectionLevel = 'owner' | ShareAccess | null

/**
 * What a caller may do with one record: as its collection says, or `attendee`: a member an event
 * names among its attendees (by their email) reads that event and answers it, whatever calendar
 * it is in, and changes nothing else of it.
 */
export type Level = CollectionLevel | 'attendee'

/** A member by id or email: their id and email (the plugin API's `auth.member`). */
export type MemberLookup = (idOrEmail: string) => { id: string; email: string } | undefined

interface Attendee {
  email: string
  status?: string
}

/** The attendees a record names (events), as stored. */
function attendeesOf(record: Record<string, unknown>): Attendee[] {
  return Array.isArray(record.attendees) ? (record.attendees as Attendee[]) : []
}

export class RecordAccess {
  private readonly q

  constructor(
    db: Database.Database,
    /** Who a member is; without it (the bench, a bare service) nobody is an attendee. */
    private readonly member: MemberLookup = () => undefined,
  ) {
    this.q = preparedOnUse(db, {
      invited: () => db.prepare<[string], number>('SELECT 1 FROM records_invitations WHERE email = ? LIMIT 1').pluck(),
      invitedTo: () => db.prepare<[string], string>('SELECT event_id FROM records_invitations WHERE email = ?').pluck(),
      invitingOwners: () => db.prepare<[string], string>('SELECT DISTINCT owner_id FROM records_invitations WHERE email = ?').pluck(),
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
  level(caller: string, def: ResourceDefinition, owner: string, target: string): CollectionLevel {
    if (owner === caller) return 'owner'
    if (!def.sharing) return null
    return (this.q.one.get(caller, def.sharing.kind, owner, target) as ShareAccess | undefined) ?? null
  }

  /** The caller's email as attendees name it (lower case), or null when they are no member. */
  emailOf(caller: string): string | null {
    return this.member(caller)?.email.toLowerCase() ?? null
  }

  /** Whether `record` names this email among its attendees. */
  static invites(record: Record<string, unknown>, email: string | null): boolean {
    return email !== null && attendeesOf(record).some((a) => typeof a.email === 'string' && a.email.toLowerCase() === email)
  }

  /** What `caller` may do with this record: as its collection says, else as one of its attendees. */
  levelOf(caller: string, def: ResourceDefinition, record: Record<string, unknown>): Level {
    const level = this.level(caller, def, String(record.owner_id), RecordAccess.target(def, record))
    if (level !== null || !def.invitations) return level
    return RecordAccess.invites(record, this.emailOf(caller)) ? 'attendee' : null
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
    if (def.sharing) {
      const since = this.q.since.get(caller, def.sharing.kind, record.owner_id, RecordAccess.target(def, record))
      if (since !== undefined && (at === undefined || since <= at)) return true
    }
    // An attendee reads the events that name them (as the record was then, for a replay).
    return Boolean(def.invitations) && RecordAccess.invites(record, this.emailOf(caller))
  }

  /**
   * Throws unless `caller` may do `action` to `record` (as stored, or as a create or an update
   * would store it: `owner_id` set). A record the caller may not read is not found for them
   * (404, like another member's record always was); one they read but may not change: 403.
   * A note shared for writing is edited by its sharees and deleted (or restored) by its owner only.
   */
  check(caller: string, def: ResourceDefinition, record: Record<string, unknown>, action: RecordAction): void {
    const found = this.levelOf(caller, def, record)
    // Nobody is an attendee of what they are creating: that is a write into someone's calendar.
    const level = found === 'attendee' && action === 'create' ? null : found
    if (level === 'owner' || (level !== null && (action === 'read' || action === 'answer'))) return
    const what = def.singular
    if (level === 'attendee')
      throw new HttpError('FORBIDDEN', `You are invited to this ${what}: answer it (rsvp); only its organizer changes it`)
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
    if (own || !def.sharing) return { userId: caller, scope: mine, owners: () => [caller] }
    const grants = this.grants(caller, def.sharing.kind)
    const email = def.invitations ? this.emailOf(caller) : null
    const invited = email !== null && this.q.invited.get(email) !== undefined
    if (grants.length === 0 && !invited) return { userId: caller, scope: mine, owners: () => [caller] }
    const column = def.sharing.column
    const granted = new Set(grants.map((g) => `${g.owner}\u0000${column === null ? '' : g.target}`))
    const visible = (r: ApiRecord) =>
      r.owner_id === caller ||
      granted.has(`${String(r.owner_id)}\u0000${RecordAccess.target(def, r)}`) ||
      (invited && RecordAccess.invites(r, email))
    const byOwner = new Map<string, string[]>()
    for (const g of grants) byOwner.set(g.owner, [...(byOwner.get(g.owner) ?? []), g.target])
    const terms: string[] = ['t.user_id = ?']
    const params: unknown[] = [caller]
    for (const [owner, targets] of byOwner) {
      if (column === null) terms.push('t.user_id = ?')
      else terms.push(`(t.user_id = ? AND t.${column} IN (${targets.map(() => '?').join(', ')}))`)
      params.push(owner, ...(column === null ? [] : targets))
    }
    // The events naming the caller among their attendees: one lookup of the invitations' index.
    if (invited) {
      terms.push('t.id IN (SELECT event_id FROM records_invitations WHERE email = ?)')
      params.push(email)
    }
    // An invitation may come from any member: those who invite the caller, from the same index.
    const owners = () => [caller, ...byOwner.keys(), ...(invited && email !== null ? this.q.invitingOwners.all(email) : [])]
    return { userId: caller, scope: { sql: `(${terms.join(' OR ')})`, params }, visible, owners }
  }

  /** Everyone who may read `record` now: its owner, then the members its collection is shared with. */
  readers(def: ResourceDefinition, record: Record<string, unknown>): string[] {
    const owner = String(record.owner_id)
    if (!def.sharing) return [owner]
    const readers = new Set([owner, ...this.q.sharees.all(owner, def.sharing.kind, RecordAccess.target(def, record))])
    if (def.invitations) for (const id of this.invitees(record)) readers.add(id)
    return [...readers]
  }

  /** The members a record names among its attendees (their ids). */
  invitees(record: Record<string, unknown>): string[] {
    const ids: string[] = []
    for (const a of attendeesOf(record)) {
      const id = typeof a.email === 'string' ? this.member(a.email)?.id : undefined
      if (id !== undefined) ids.push(id)
    }
    return ids
  }

  /** The ids of the events naming `caller` among their attendees (their own included). */
  invitedTo(caller: string): string[] {
    const email = this.emailOf(caller)
    return email === null ? [] : this.q.invitedTo.all(email)
  }

  /** The members who share at least one collection with `caller`, or invite them to an event. */
  ownersSharingWith(caller: string): string[] {
    const owners = this.q.owners.all(caller)
    const email = this.emailOf(caller)
    if (email === null) return owners
    return [...new Set([...owners, ...this.q.invitingOwners.all(email)])]
  }

  /**
   * A member's answer is theirs: whoever else writes an event (its organizer, a sharee, a client
   * resending the whole attendee list) keeps each member attendee's status as it was, and a member
   * newly named starts `pending`. Only the caller's own entry follows what they write.
   */
  keepAnswers(caller: string, def: ResourceDefinition, next: Record<string, unknown>, previous: Record<string, unknown> | null): void {
    if (!def.invitations || !Array.isArray(next.attendees)) return
    const own = this.emailOf(caller)
    const before = new Map(attendeesOf(previous ?? {}).map((a) => [String(a.email).toLowerCase(), a.status]))
    next.attendees = attendeesOf(next).map((a) => {
      const email = String(a.email).toLowerCase()
      if (email === own || this.member(email) === undefined) return a
      return { ...a, status: before.get(email) ?? 'pending' }
    })
  }

  /** `record` with the caller's own attendee entry answered; 403 when they are not among its attendees. */
  answered(caller: string, record: Record<string, unknown>, status: string): Record<string, unknown> {
    const email = this.emailOf(caller)
    if (!RecordAccess.invites(record, email))
      throw new HttpError('FORBIDDEN', 'You are not among the attendees of this event: only attendees answer it')
    return { ...record, attendees: attendeesOf(record).map((a) => (a.email.toLowerCase() === email ? { ...a, status } : a)) }
  }
}

/** 'calendar', 'address book', 'task list', 'note': what a message names. */
export function collectionOf(def: ResourceDefinition): string {
  const kind = def.sharing?.kind
  return kind === 'addressbook' ? 'address book' : kind === 'tasklist' ? 'task list' : (kind ?? def.singular)
}
