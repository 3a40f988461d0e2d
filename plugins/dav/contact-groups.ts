import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { type HearthEvent, HttpError, preparedOnUse } from '../../core/plugin-api.js'
import { ifMatchHolds, ifNoneMatchHolds } from '../../lib/etag.js'
import type { ApiRecord, RecordsService } from '../records/public.js'
import { bareUid, readGroupCard, writeGroupCard } from './group-card.js'
import type { DavStore } from './store.js'

/**
 * Contact groups over CardDAV, as Apple's Contacts keeps them: each group is a vCard of its own in
 * the address book (`X-ADDRESSBOOKSERVER-KIND:group`, its members as
 * `X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:<member UID>`; vCard 4.0's `KIND:group` and `MEMBER` alike),
 * the shape CalendarServer defined and Radicale, SabreDAV and Nextcloud store as they come.
 * Here membership lives in the contacts' `groups` (the JSON API's field, vCard CATEGORIES): a group
 * card a client writes sets `groups` on the members it names and takes it from the contacts it no
 * longer names; a group set through the JSON API is listed as a group card, so phones show it.
 *
 * Groups are an address book's: a member's own, or one another member shares with them (a group
 * card written there by a write sharee is the owner's group, as if the owner had written it; a
 * read sharee reads the owner's group cards). Its rows, names and change log are the owner's;
 * its contacts are read and written as the caller, through the records' access rules.
 */
export const GROUP_COLLECTION = 'contacts'

/** Whose address book (`owner`) and who asks (`caller`): the same member for their own. */
export interface Book {
  caller: string
  owner: string
}

interface GroupRow {
  user_id: string
  name: string
  grp: string
  uid: string
  client: number
  pending: string
  original: string | null
  original_etag: string | null
}

export interface GroupObject {
  name: string
  records: ApiRecord[]
  etag: string
  group: { row: GroupRow; members: ApiRecord[] }
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex')
const uuidFrom = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`
export function contactGroups(db: Database.Database, service: RecordsService, store: DavStore) {
  const q = preparedOnUse(db, {
    byName: () => db.prepare<[string, string], GroupRow>('SELECT * FROM dav_groups WHERE user_id = ? AND name = ?'),
    byGroup: () => db.prepare<[string, string], GroupRow>('SELECT * FROM dav_groups WHERE user_id = ? AND grp = ?'),
    ofUser: () => db.prepare<[string], GroupRow>('SELECT * FROM dav_groups WHERE user_id = ? ORDER BY name'),
    derive: () => db.prepare('INSERT OR IGNORE INTO dav_groups (user_id, name, grp, uid, client) VALUES (?, ?, ?, ?, 0)'),
    upsert: () =>
      db.prepare(
        `INSERT INTO dav_groups (user_id, name, grp, uid, client, pending, original, original_etag) VALUES (?, ?, ?, ?, 1, ?, ?, ?)
         ON CONFLICT(user_id, name) DO UPDATE SET grp = excluded.grp, uid = excluded.uid, client = 1, pending = excluded.pending,
           original = excluded.original, original_etag = excluded.original_etag`,
      ),
    settle: () => db.prepare('UPDATE dav_groups SET original_etag = ? WHERE user_id = ? AND name = ?'),
    pending: () => db.prepare('UPDATE dav_groups SET pending = ? WHERE user_id = ? AND name = ?'),
    drop: () => db.prepare('DELETE FROM dav_groups WHERE user_id = ? AND name = ?'),
  })

  /** The book owner's contacts in a group, as the caller reads them (a sharee's own contacts are in their own book). */
  const contactsIn = ({ caller, owner }: Book, grp: string): ApiRecord[] => {
    const out: ApiRecord[] = []
    const own = caller === owner ? ('me' as const) : undefined
    for (let offset = 0; ; offset += 200) {
      const page = service.list(caller, 'contacts', { group: [grp], owner: own, limit: 200, offset, sort: 'created_at' })
      out.push(...(page.items as ApiRecord[]).filter((c) => c.owner_id === owner))
      if (page.items.length < 200) return out
    }
  }

  /** The UID a client knows a contact by: the one it gave, else Hearth's (the contact's id). */
  const uidsOf = (book: Book, contacts: ApiRecord[]): string[] => {
    const kept = service.propertiesOf(
      book.caller,
      'contacts',
      contacts.map((c) => c.id),
    )
    return contacts.map((c) => bareUid(kept.get(c.id)?.find(([n]) => n === 'UID')?.[2] ?? c.id))
  }

  const etagOf = (row: GroupRow, uids: string[]) =>
    `"g${sha(`${row.grp}\u0000${row.uid}\u0000${[...uids].sort().join(',')}`).slice(0, 20)}"`

  const objectOf = (book: Book, row: GroupRow): GroupObject | null => {
    const members = contactsIn(book, row.grp)
    if (!members.length && !row.client) return null
    return { name: row.name, records: [], etag: etagOf(row, uidsOf(book, members)), group: { row, members } }
  }

  /** A row for a group the contacts have (set through the JSON API or a file): Hearth names its object. */
  const ensure = (owner: string, grp: string) => {
    const uid = uuidFrom(sha(`${owner}/${grp}`))
    q.derive.run(owner, `group-${uid}.vcf`, grp, uid)
  }

  /** Every group object may have changed (a contact's groups did): logged for sync-collection and getctag. */
  const logAll = (owner: string) => {
    for (const row of q.ofUser.all(owner)) store.log(owner, 'card', GROUP_COLLECTION, row.name, false)
  }

  /** The contact ids these UIDs name among the book owner's contacts the caller reads; the UIDs no such contact has yet. */
  const resolve = (book: Book, uids: string[]) => {
    const ids = new Set<string>()
    const unknown: string[] = []
    for (const uid of uids) {
      // The UIDs clients gave are kept under the contacts' owner; each contact is then read as the caller.
      const found = [
        ...service.recordsWithProperty(book.owner, 'contacts', 'UID', uid),
        ...service.recordsWithProperty(book.owner, 'contacts', 'UID', `urn:uuid:${uid}`),
      ]
      if (!found.length && /^[0-9a-f-]{36}$/i.test(uid)) found.push(uid.toLowerCase())
      const own = found.filter((id) => inBook(book, id))
      if (own.length) for (const id of own) ids.add(id)
      else unknown.push(uid)
    }
    return { ids, unknown }
  }

  const inBook = ({ caller, owner }: Book, id: string): boolean => {
    try {
      return service.get(caller, 'contacts', id).owner_id === owner
    } catch (err) {
      if (err instanceof HttpError) return false
      throw err
    }
  }

  /** Written as the caller: the records service refuses a contact they may not write. */
  const setGroups = ({ caller }: Book, contact: ApiRecord, groups: string[]) => {
    service.update(caller, 'contacts', contact.id, { groups })
  }

  return {
    /** Group objects of the address book, given its contacts (read once by the caller). */
    members(book: Book, contacts: Iterable<Record<string, unknown>>): GroupObject[] {
      for (const c of contacts)
        for (const grp of (c.groups as string[] | undefined) ?? []) if (c.owner_id === book.owner) ensure(book.owner, grp)
      return q.ofUser
        .all(book.owner)
        .map((row) => objectOf(book, row))
        .filter((o): o is GroupObject => o !== null)
    },

    find(book: Book, name: string): GroupObject | null {
      const row = q.byName.get(book.owner, name)
      return row ? objectOf(book, row) : null
    },

    render(book: Book, obj: GroupObject): string {
      const { row, members } = obj.group
      if (row.original && row.original_etag === obj.etag) return row.original
      return writeGroupCard(row.grp, row.uid, uidsOf(book, members))
    },

    /** PUT of a group card: the group's members are the contacts it names, and only those. */
    put(book: Book, name: string, text: string, ifMatch?: string, ifNoneMatch?: string): { created: boolean; etag: string } {
      const { owner } = book
      const card = readGroupCard(text)
      const existing = q.byName.get(owner, name)
      const current = existing ? objectOf(book, existing) : null
      const tag = current?.etag ?? null
      if ((ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, tag)) || (ifMatch !== undefined && !ifMatchHolds(ifMatch, tag)))
        throw new HttpError('PRECONDITION_FAILED', 'The object changed since you read it (If-Match / If-None-Match)')
      const other = q.byGroup.get(owner, card.grp)
      if (other && other.name !== name) {
        if (other.client) throw new HttpError('CONFLICT', `Another group card is called ${card.grp}`, { field: 'FN', constraint: 'unique' })
        // The group Hearth listed for this name: the client's card takes its place.
        q.drop.run(owner, other.name)
        store.log(owner, 'card', GROUP_COLLECTION, other.name, true)
      }
      const { ids, unknown } = resolve(book, card.members)
      const uid = card.uid ?? existing?.uid ?? uuidFrom(sha(`${owner}/${name}`))
      db.transaction(() => {
        // The row first: the contact events below find the group's object already under the client's name.
        q.upsert.run(owner, name, card.grp, uid, JSON.stringify(unknown), text, null)
        const renamed = existing && existing.grp !== card.grp ? existing.grp : null
        if (renamed)
          for (const c of contactsIn(book, renamed))
            setGroups(
              book,
              c,
              (c.groups as string[]).filter((g) => g !== renamed),
            )
        for (const c of contactsIn(book, card.grp))
          if (!ids.has(c.id))
            setGroups(
              book,
              c,
              (c.groups as string[]).filter((g) => g !== card.grp),
            )
        for (const id of ids) {
          const c = service.get(book.caller, 'contacts', id)
          const groups = (c.groups as string[] | undefined) ?? []
          if (!groups.includes(card.grp)) setGroups(book, c, [...groups, card.grp])
        }
      })()
      const row = q.byName.get(owner, name) as GroupRow
      const obj = objectOf(book, row) as GroupObject
      // Served as written while its membership is the one it named.
      q.settle.run(obj.etag, owner, name)
      store.log(owner, 'card', GROUP_COLLECTION, name, false)
      return { created: !existing, etag: obj.etag }
    },

    /** DELETE of a group card: nobody is in the group any more. */
    remove(book: Book, name: string, ifMatch?: string): boolean {
      const row = q.byName.get(book.owner, name)
      if (!row) return false
      const current = objectOf(book, row)
      if (!current) return false
      if (ifMatch !== undefined && !ifMatchHolds(ifMatch, current.etag))
        throw new HttpError('PRECONDITION_FAILED', 'The object changed since you read it (If-Match)')
      db.transaction(() => {
        q.drop.run(book.owner, name)
        for (const c of current.group.members)
          setGroups(
            book,
            c,
            (c.groups as string[]).filter((g) => g !== row.grp),
          )
      })()
      store.log(book.owner, 'card', GROUP_COLLECTION, name, true)
      return true
    },

    /** A contact card written with this UID: the groups that named it before it existed take it in. */
    claim(book: Book, uid: string | undefined, contactId: string) {
      if (!uid) return
      const bare = bareUid(uid)
      for (const row of q.ofUser.all(book.owner)) {
        const pending = JSON.parse(row.pending) as string[]
        if (!pending.includes(bare)) continue
        q.pending.run(JSON.stringify(pending.filter((u) => u !== bare)), book.owner, row.name)
        const c = service.get(book.caller, 'contacts', contactId)
        const groups = (c.groups as string[] | undefined) ?? []
        if (!groups.includes(row.grp)) setGroups(book, c, [...groups, row.grp])
        // The card named this member: with it in, the group is still what the card says.
        const obj = row.original ? objectOf(book, row) : null
        if (obj) q.settle.run(obj.etag, book.owner, row.name)
      }
    },

    /** A contact changed: its groups have objects, and every group object may have changed. */
    contactChanged(event: HearthEvent) {
      const userId = event.userId
      if (!userId) return
      const groups = (event.data as { groups?: unknown } | undefined)?.groups
      if (Array.isArray(groups)) for (const grp of groups) if (typeof grp === 'string') ensure(userId, grp)
      logAll(userId)
    },
  }
}
export type ContactGroups = ReturnType<typeof contactGroups>
