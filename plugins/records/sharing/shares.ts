import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import { type EventBus, HttpError, type Member, preparedOnUse } from '../../../core/plugin-api.js'
import type { ShareKind } from '../engine/types.js'
import type { RecordsService } from '../service.js'
import type { ShareAccess } from './access.js'
import { BIRTHDAYS } from '../resources/birthdays.js'

/**
 * Shares as members manage them: one of your collections (a calendar, your address book, a task
 * list, one note) opened to another member for reading or writing. Only the owner of a collection
 * shares it and changes or ends its shares. Every change is told to both members
 * (`share.created|updated|deleted`, one event each) and makes the sharee's cached lists stale;
 * what the sharee may read and write follows from records_shares at once (access.ts).
 */
export interface Share {
  id: string
  kind: ShareKind
  name: string | null
  note_id: string | null
  owner_id: string
  with_user_id: string
  access: ShareAccess
  created_at: string
}

export interface NewShare {
  kind: ShareKind
  name?: string
  note_id?: string
  with: string
  access: ShareAccess
}

interface Row {
  id: string
  kind: ShareKind
  target: string
  owner_id: string
  with_user_id: string
  access: ShareAccess
  created_at: string
}

/** Which list: the shares you made, or those made with you. */
export type Direction = 'mine' | 'with_me'

export interface SharesDeps {
  db: Database.Database
  records: RecordsService
  events: Pick<EventBus, 'emit'>
  member: (idOrEmail: string) => Member | undefined
  now: () => number
}

const NAMED: Record<ShareKind, 'name' | 'note_id' | null> = { calendar: 'name', tasklist: 'name', note: 'note_id', addressbook: null }

const invalid = (field: string, constraint: string, message: string) => new HttpError('VALIDATION_ERROR', message, { field, constraint })

export function createShares({ db, records, events, member, now }: SharesDeps) {
  const q = preparedOnUse(db, {
    insert: () =>
      db.prepare(
        'INSERT INTO records_shares (id, owner_id, with_user_id, kind, target, access, created_at) ' +
          'VALUES (@id, @owner_id, @with_user_id, @kind, @target, @access, @created_at)',
      ),
    byId: () => db.prepare<[string], Row>('SELECT * FROM records_shares WHERE id = ?'),
    mine: () =>
      db.prepare<[string, number, number], Row>('SELECT * FROM records_shares WHERE owner_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?'),
    withMe: () =>
      db.prepare<[string, number, number], Row>(
        'SELECT * FROM records_shares WHERE with_user_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?',
      ),
    countMine: () => db.prepare<[string], number>('SELECT count(*) FROM records_shares WHERE owner_id = ?').pluck(),
    countWithMe: () => db.prepare<[string], number>('SELECT count(*) FROM records_shares WHERE with_user_id = ?').pluck(),
    setAccess: () => db.prepare('UPDATE records_shares SET access = ? WHERE id = ?'),
    remove: () => db.prepare('DELETE FROM records_shares WHERE id = ?'),
    ofNote: () => db.prepare<[string, string], Row>("SELECT * FROM records_shares WHERE owner_id = ? AND kind = 'note' AND target = ?"),
  })

  const toShare = (r: Row): Share => ({
    id: r.id,
    kind: r.kind,
    name: NAMED[r.kind] === 'name' ? r.target : null,
    note_id: r.kind === 'note' ? r.target : null,
    owner_id: r.owner_id,
    with_user_id: r.with_user_id,
    access: r.access,
    created_at: r.created_at,
  })

  /** Both members hear of it; the sharee's cached lists are computed again. */
  const told = (action: 'created' | 'updated' | 'deleted', share: Share) => {
    records.sharingChanged(share.with_user_id)
    const at = new Date(now()).toISOString()
    for (const userId of [share.owner_id, share.with_user_id]) events.emit(`share.${action}`, { userId, id: share.id, at, data: share })
  }

  /** The share as its owner may change it: 404 when the caller is neither party, 403 for its sharee. */
  const owned = (caller: string, id: string): Row => {
    const row = q.byId.get(id)
    if (!row || (row.owner_id !== caller && row.with_user_id !== caller)) throw new HttpError('NOT_FOUND', 'Share not found')
    if (row.owner_id !== caller) throw new HttpError('FORBIDDEN', 'Only the owner of a collection changes its shares')
    return row
  }

  /** The collection a new share names, checked: a note must be the caller's own. */
  const targetOf = (caller: string, body: NewShare): string => {
    const named = NAMED[body.kind]
    for (const field of ['name', 'note_id'] as const) {
      if (field !== named && body[field] !== undefined) throw invalid(field, 'kind', `${field} does not go with kind ${body.kind}`)
    }
    if (named === null) return ''
    const value = body[named]
    if (value === undefined) throw invalid(named, 'required', `${named} is required to share a ${body.kind}`)
    // The birthdays calendar follows the address book: sharing the address book shares it.
    if (body.kind === 'calendar' && value === BIRTHDAYS)
      throw invalid('name', 'read_only', 'The birthdays calendar is made from contacts: share the address book instead')
    if (body.kind !== 'note') return value
    const note = records.get(caller, 'notes', value, { includeDeleted: true })
    if (note.owner_id !== caller) throw new HttpError('FORBIDDEN', 'Only the owner of a note shares it')
    return value
  }

  return {
    create(caller: string, body: NewShare): Share {
      const target = targetOf(caller, body)
      const sharee = member(body.with)
      if (!sharee) throw new HttpError('NOT_FOUND', 'No member of this instance has that id or email')
      if (sharee.id === caller) throw invalid('with', 'self', 'You cannot share with yourself')
      const row: Row = {
        id: randomUUID(),
        owner_id: caller,
        with_user_id: sharee.id,
        kind: body.kind,
        target,
        access: body.access,
        created_at: new Date(now()).toISOString(),
      }
      try {
        q.insert.run(row)
      } catch (err) {
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
          throw new HttpError('CONFLICT', `This ${body.kind} is already shared with that member: change that share's access instead`)
        throw err
      }
      const share = toShare(row)
      told('created', share)
      return share
    },

    list(caller: string, direction: Direction, limit: number, offset: number): { items: Share[]; total: number } {
      const [page, count] = direction === 'mine' ? [q.mine, q.countMine] : [q.withMe, q.countWithMe]
      return { items: page.all(caller, limit, offset).map(toShare), total: count.get(caller) as number }
    },

    update(caller: string, id: string, access: ShareAccess): Share {
      const row = owned(caller, id)
      if (row.access === access) return toShare(row)
      q.setAccess.run(access, id)
      const share = toShare({ ...row, access })
      told('updated', share)
      return share
    },

    remove(caller: string, id: string): Share {
      const share = toShare(owned(caller, id))
      q.remove.run(id)
      told('deleted', share)
      return share
    },

    /** A note erased for good takes its shares with it (after its own deleted event reached its sharees). */
    noteErased(owner: string, noteId: string): void {
      for (const row of q.ofNote.all(owner, noteId)) {
        q.remove.run(row.id)
        told('deleted', toShare(row))
      }
    },
  }
}

export type Shares = ReturnType<typeof createShares>
