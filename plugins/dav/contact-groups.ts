import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { type HearthEvent, HttpError, preparedOnUse } from '../../core/plugin-api.js'
import { parseComponents } from '../../lib/content-line/components.js'
import { contentLine, escapeText, unescapeText } from '../../lib/content-line/lines.js'
import { ifMatchHolds, ifNoneMatchHolds } from '../../lib/etag.js'
import type { ApiRecord, RecordsService } from '../records/public.js'
import type { DavStore } from './store.js'

/**
 * Contact groups over CardDAV, as Apple's Contacts keeps them: each group is a vCard of its own in
 * the address book (`X-ADDRESSBOOKSERVER-KIND:group`, its members as
 * `X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:<member UID>`; vCard 4.0's `KIND:group` and `MEMBER` alike),
 * the shape CalendarServer defined and Radicale, SabreDAV and Nextcloud store as they come.
 * Here membership lives in the contacts' `groups` (the JSON API's field, vCard CATEGORIES): a group
 * card a client writes sets `groups` on the members it names and takes it from the contacts it no
 * longer names; a group set through the JSON API is listed as a group card, so phones show it.
 */
export const GROUP_COLLECTION = 'contacts'

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
const bareUid = (uid: string) => uid.trim().replace(/^urn:uuid:/i, '')

/** Whether a vCard is a group card (Apple's X-ADDRESSBOOKSERVER-KIND or vCard 4.0's KIND). */
export function isGroupCard(text: string): boolean {
  const card = parseComponents(text).roots[0]
  const kind = card?.properties.find((p) => p.name === 'KIND' || p.name === 'X-ADDRESSBOOKSERVER-KIND')
  return kind !== undefined && unescapeText(kind.value).trim().toLowerCase() === 'group'
}

function readGroupCard(text: string): { grp: string; uid: string | null; members: string[] } {
  const { roots } = parseComponents(text)
  const card = roots[0]
  if (roots.length !== 1 || !card || card.name !== 'VCARD')
    throw new HttpError('VALIDATION_ERROR', 'the body must hold exactly one vCard', { field: 'body', constraint: 'format' })
  const value = (name: string) => card.properties.find((p) => p.name === name)?.value
  const grp = unescapeText(value('FN') ?? value('N')?.split(';')[0] ?? '').trim()
  if (!grp || grp.length > 200 || /[\u0000-\u001f]/.test(grp))
    throw new HttpError('VALIDATION_ERROR', 'a group card needs its name in FN (at most 200 characters)', {
      field: 'FN',
      constraint: 'required',
    })
  const members = card.properties
    .filter((p) => p.name === 'X-ADDRESSBOOKSERVER-MEMBER' || p.name === 'MEMBER')
    .map((p) => bareUid(unescapeText(p.value)))
    .filter(Boolean)
  const uid = value('UID')
  return { grp, uid: uid ? unescapeText(uid).trim() : null, members: [...new Set(members)] }
}

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

  /** The user's own contacts in a group (the address book is theirs; shared books are not grouped here). */
  const contactsIn = (userId: string, grp: string): ApiRecord[] => {
    const out: ApiRecord[] = []
    for (let offset = 0; ; offset += 200) {
      const page = service.list(userId, 'contacts', { group: [grp], owner: 'me', limit: 200, offset, sort: 'created_at' })
      out.push(...(page.items as ApiRecord[]))
      if (page.items.length < 200) return out
    }
  }

  /** The UID a client knows a contact by: the one it gave, else Hearth's (the contact's id). */
  const uidsOf = (userId: string, contacts: ApiRecord[]): string[] => {
    const kept = service.propertiesOf(
      userId,
      'contacts',
      contacts.map((c) => c.id),
    )
    return contacts.map((c) => bareUid(kept.get(c.id)?.find(([n]) => n === 'UID')?.[2] ?? c.id))
  }

  const etagOf = (row: GroupRow, uids: string[]) =>
    `"g${sha(`${row.grp}\u0000${row.uid}\u0000${[...uids].sort().join(',')}`).slice(0, 20)}"`

  const objectOf = (userId: string, row: GroupRow): GroupObject | null => {
    const members = contactsIn(userId, row.grp)
    if (!members.length && !row.client) return null
    return { name: row.name, records: [], etag: etagOf(row, uidsOf(userId, members)), group: { row, members } }
  }

  /** A row for a group the contacts have (set through the JSON API or a file): Hearth names its object. */
  const ensure = (userId: string, grp: string) => {
    const uid = uuidFrom(sha(`${userId}/${grp}`))
    q.derive.run(userId, `group-${uid}.vcf`, grp, uid)
  }

  /** Every group object may have changed (a contact's groups did): logged for sync-collection and getctag. */
  const logAll = (userId: string) => {
    for (const row of q.ofUser.all(userId)) store.log(userId, 'card', GROUP_COLLECTION, row.name, false)
  }

  /** The contact ids these UIDs name among the user's own contacts; the UIDs no contact has yet. */
  const resolve = (userId: string, uids: string[]) => {
    const ids = new Set<string>()
    const unknown: string[] = []
    for (const uid of uids) {
      const found = [
        ...service.recordsWithProperty(userId, 'contacts', 'UID', uid),
        ...service.recordsWithProperty(userId, 'contacts', 'UID', `urn:uuid:${uid}`),
      ]
      if (!found.length && /^[0-9a-f-]{36}$/i.test(uid)) found.push(uid.toLowerCase())
      const own = found.filter((id) => ownContact(userId, id))
      if (own.length) for (const id of own) ids.add(id)
      else unknown.push(uid)
    }
    return { ids, unknown }
  }

  const ownContact = (userId: string, id: string): boolean => {
    try {
      return service.get(userId, 'contacts', id).owner_id === userId
    } catch (err) {
      if (err instanceof HttpError) return false
      throw err
    }
  }

  const setGroups = (userId: string, contact: ApiRecord, groups: string[]) => {
    service.update(userId, 'contacts', contact.id, { groups })
  }

  return {
    /** Group objects of the address book, given the user's contacts (read once by the caller). */
    members(userId: string, contacts: Iterable<Record<string, unknown>>): GroupObject[] {
      for (const c of contacts) for (const grp of (c.groups as string[] | undefined) ?? []) if (c.owner_id === userId) ensure(userId, grp)
      return q.ofUser
        .all(userId)
        .map((row) => objectOf(userId, row))
        .filter((o): o is GroupObject => o !== null)
    },

    find(userId: string, name: string): GroupObject | null {
      const row = q.byName.get(userId, name)
      return row ? objectOf(userId, row) : null
    },

    render(userId: string, obj: GroupObject): string {
      const { row, members } = obj.group
      if (row.original && row.original_etag === obj.etag) return row.original
      const lines = [
        'BEGIN:VCARD',
        'VERSION:3.0',
        'PRODID:-//Hearth//Hearth Records//EN',
        contentLine('N', [], escapeText(row.grp)),
        contentLine('FN', [], escapeText(row.grp)),
        'X-ADDRESSBOOKSERVER-KIND:group',
        contentLine('UID', [], escapeText(row.uid)),
        ...uidsOf(userId, members).map((uid) => contentLine('X-ADDRESSBOOKSERVER-MEMBER', [], `urn:uuid:${uid}`)),
        'END:VCARD',
      ]
      return `${lines.join('\r\n')}\r\n`
    },

    /** PUT of a group card: the group's members are the contacts it names, and only those. */
    put(userId: string, name: string, text: string, ifMatch?: string, ifNoneMatch?: string): { created: boolean; etag: string } {
      const card = readGroupCard(text)
      const existing = q.byName.get(userId, name)
      const current = existing ? objectOf(userId, existing) : null
      const tag = current?.etag ?? null
      if ((ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, tag)) || (ifMatch !== undefined && !ifMatchHolds(ifMatch, tag)))
        throw new HttpError('PRECONDITION_FAILED', 'The object changed since you read it (If-Match / If-None-Match)')
      const other = q.byGroup.get(userId, card.grp)
      if (other && other.name !== name) {
        if (other.client) throw new HttpError('CONFLICT', `Another group card is called ${card.grp}`, { field: 'FN', constraint: 'unique' })
        // The group Hearth listed for this name: the client's card takes its place.
        q.drop.run(userId, other.name)
        store.log(userId, 'card', GROUP_COLLECTION, other.name, true)
      }
      const { ids, unknown } = resolve(userId, card.members)
      const uid = card.uid ?? existing?.uid ?? uuidFrom(sha(`${userId}/${name}`))
      db.transaction(() => {
        // The row first: the contact events below find the group's object already under the client's name.
        q.upsert.run(userId, name, card.grp, uid, JSON.stringify(unknown), text, null)
        const renamed = existing && existing.grp !== card.grp ? existing.grp : null
        if (renamed)
          for (const c of contactsIn(userId, renamed))
            setGroups(
              userId,
              c,
              (c.groups as string[]).filter((g) => g !== renamed),
            )
        for (const c of contactsIn(userId, card.grp))
          if (!ids.has(c.id))
            setGroups(
              userId,
              c,
              (c.groups as string[]).filter((g) => g !== card.grp),
            )
        for (const id of ids) {
          const c = service.get(userId, 'contacts', id)
          const groups = (c.groups as string[] | undefined) ?? []
          if (!groups.includes(card.grp)) setGroups(userId, c, [...groups, card.grp])
        }
      })()
      const row = q.byName.get(userId, name) as GroupRow
      const obj = objectOf(userId, row) as GroupObject
      // Served as written while its membership is the one it named.
      q.settle.run(obj.etag, userId, name)
      store.log(userId, 'card', GROUP_COLLECTION, name, false)
      return { created: !existing, etag: obj.etag }
    },

    /** DELETE of a group card: nobody is in the group any more. */
    remove(userId: string, name: string, ifMatch?: string): boolean {
      const row = q.byName.get(userId, name)
      if (!row) return false
      const current = objectOf(userId, row)
      if (!current) return false
      if (ifMatch !== undefined && !ifMatchHolds(ifMatch, current.etag))
        throw new HttpError('PRECONDITION_FAILED', 'The object changed since you read it (If-Match)')
      db.transaction(() => {
        q.drop.run(userId, name)
        for (const c of current.group.members)
          setGroups(
            userId,
            c,
            (c.groups as string[]).filter((g) => g !== row.grp),
          )
      })()
      store.log(userId, 'card', GROUP_COLLECTION, name, true)
      return true
    },

    /** A contact card written with this UID: the groups that named it before it existed take it in. */
    claim(userId: string, uid: string | undefined, contactId: string) {
      if (!uid) return
      const bare = bareUid(uid)
      for (const row of q.ofUser.all(userId)) {
        const pending = JSON.parse(row.pending) as string[]
        if (!pending.includes(bare)) continue
        q.pending.run(JSON.stringify(pending.filter((u) => u !== bare)), userId, row.name)
        const c = service.get(userId, 'contacts', contactId)
        const groups = (c.groups as string[] | undefined) ?? []
        if (!groups.includes(row.grp)) setGroups(userId, c, [...groups, row.grp])
        // The card named this member: with it in, the group is still what the card says.
        const obj = row.original ? objectOf(userId, row) : null
        if (obj) q.settle.run(obj.etag, userId, row.name)
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
