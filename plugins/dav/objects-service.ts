import type { EventBus, HearthEvent } from '../../core/plugin-api.js'
import { HttpError } from '../../core/plugin-api.js'
import { ifMatchHolds, ifNoneMatchHolds } from '../../lib/etag.js'
import { occurrences, type Recurrence } from '../../lib/ical/recurrence.js'
import { parseComponents } from '../../lib/content-line/components.js'
import {
  type ApiRecord,
  cardPhoto,
  type PreparedPhoto,
  type RecordsPluginService,
  type ResourceName,
  type StoredProperty,
} from '../records/public.js'
import { contentLines, objectEtag, readCalendar, readCard, readTodo, writeCalendar, writeCard, writeTodo } from './objects.js'
import { type Privilege, SHARE_KIND, shareTarget } from './shared.js'
import { AttendeeChangeRefused, answersIn, INVITATION_LOG, INVITATIONS } from './invitations.js'
import type { CalendarKind, DavStore, Kind, ObjectRow } from './store.js'
import { BIRTHDAYS, birthdayObjects, isBirthdays, readOnly } from './birthdays.js'
import { type Book, type ContactGroups, type GroupObject } from './contact-groups.js'
import { isGroupCard } from './group-card.js'

/**
 * The DAV view of a user's records: collections (the address book, one calendar per
 * calendar_name), the objects in them, writes through the records service, and the
 * change log the records' events feed (sync-collection, getctag).
 */
export interface Collection {
  kind: Kind
  /** 'contacts' for the address book; the calendar_name of a calendar. */
  name: string
  /**
   * Whose collection it is when another member shares it with the user (shared.ts); absent for
   * the user's own. Its DAV rows (names, originals, change log) are the owner's; its records are
   * read and written as the user, through the records service's access rules.
   */
  owner?: string
  /** The user's Invitations (invitations.ts): other members' events naming them among their attendees. */
  invitations?: boolean
}

export interface DavObject {
  name: string
  /** The record (a series first, then its overridden occurrences); none for a contact group's card. */
  records: ApiRecord[]
  etag: string
  /** A contact group's card (contact-groups.ts): its row and members. */
  group?: GroupObject['group']
}

export const ADDRESS_BOOK = 'contacts'
const EXT: Record<Kind, string> = { card: '.vcf', event: '.ics', task: '.ics' }
const RESOURCE: Record<Kind, ResourceName> = { card: 'contacts', event: 'events', task: 'tasks' }
/** The UID Hearth writes for a record without one of its own: its id (vCard 3: bare, vCard 4: urn:uuid:, iCalendar: @hearth). */
const HEARTH_UID = /^(?:urn:uuid:)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:@hearth)?$/i

/** A PUT whose UID another object of the collection holds (`holder`, that object's name): answered 409 with no-uid-conflict. */
export class UidConflict extends HttpError {
  constructor(readonly holder: string) {
    super('CONFLICT', 'Another object of this collection has that UID', { constraint: 'no-uid-conflict' })
  }
}

const UUID_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(vcf|ics)$/

export function createObjects(deps: {
  records: RecordsPluginService
  store: DavStore
  groups: ContactGroups
  events: EventBus
  now: () => number
  /** A member by id (their name and email): an invitation names its organizer. */
  member?: (id: string) => { name?: string | null; email: string } | undefined
}) {
  const { records, store, now, groups } = deps
  const { service } = records
  /** The object a PUT is writing: its created record takes the name the client chose. */
  let writing: { userId: string; kind: Kind; collection: string; name: string } | null = null
  /** Users whose calendar names were read from their events (records older than this plugin). */
  const listed = new Set<string>()

  const collectionOf = (kind: Kind, record: ApiRecord) =>
    kind === 'card' ? ADDRESS_BOOK : String(kind === 'task' ? record.list_name : record.calendar_name)
  /** Whose DAV rows a collection's objects are filed under: the owner's for a shared one. */
  const homeOf = (userId: string, c: Collection) => c.owner ?? userId
  /** An address book's contact groups, as the user reads and writes them (contact-groups.ts). */
  const bookOf = (userId: string, c: Collection): Book => ({ caller: userId, owner: homeOf(userId, c) })
  /** Whether a record the user may read belongs in collection `c` (theirs, or the sharing member's). */
  const inCollection = (userId: string, c: Collection, r: ApiRecord) =>
    r.owner_id === homeOf(userId, c) && collectionOf(c.kind, r) === c.name

  // ---- the change log, fed by the records' events (JSON API, imports, DAV alike) ----
  const onChange = (kind: Kind, event: HearthEvent) => {
    const userId = event.userId
    if (!userId) return
    const action = event.type.slice(event.type.indexOf('.') + 1)
    if (action === 'imported') {
      const data = event.data as { ids?: string[]; ids_truncated?: boolean }
      for (const id of data.ids ?? []) {
        try {
          track(kind, userId, id, service.get(userId, RESOURCE[kind], id, { includeDeleted: true }), false)
        } catch (err) {
          if (!(err instanceof HttpError)) throw err
        }
      }
      // More than the event could list: sync tokens from before it are refused (clients sync again in full).
      if (data.ids_truncated) store.log(userId, '*', '', '', false)
      return
    }
    if (!event.id) return
    const data = (event.data ?? {}) as ApiRecord
    track(kind, userId, event.id, data, action === 'deleted' && !('deleted_at' in data))
  }

  /**
   * An event's change is a change of its Invitations object for every member it names (or named
   * until now: dropped from its attendees, deleted, it is gone from theirs).
   */
  const trackInvitations = (id: string, record: ApiRecord, permanent: boolean) => {
    const seriesId = (record.recurrence_id as string | null | undefined) ?? id
    const before = store.invitees(seriesId)
    // An overridden occurrence changes its series' object for those it lists.
    const now =
      seriesId !== id ? before : permanent || record.deleted_at ? [] : service.access.invitees(record).filter((u) => u !== record.owner_id)
    const name = `${seriesId}${EXT.event}`
    for (const u of before) if (!now.includes(u)) store.setInvited(seriesId, u, false)
    for (const u of now) store.setInvited(seriesId, u, true)
    for (const u of new Set([...before, ...now])) store.log(u, INVITATION_LOG, INVITATIONS, name, !now.includes(u))
  }

  const track = (kind: Kind, userId: string, id: string, record: ApiRecord, permanent: boolean) => {
    if (kind === 'event') trackInvitations(id, record, permanent)
    const row = store.byRecord(userId, id)
    // An overridden occurrence is part of its series' object.
    const seriesId = kind === 'event' ? ((record.recurrence_id as string | null | undefined) ?? null) : null
    if (seriesId || (row && !row.main)) {
      const series = seriesId ? store.byRecord(userId, seriesId) : row
      const collection = series?.collection ?? String(record.calendar_name)
      const name = series?.name ?? `${seriesId}${EXT.event}`
      if (permanent) store.forget(userId, id)
      else if (!row) store.place({ record_id: id, user_id: userId, kind, collection, name, main: 0, original: null, original_etag: null })
      store.log(userId, kind, collection, name, false)
      return
    }
    if (permanent) {
      if (row) {
        store.log(userId, kind, row.collection, row.name, true)
        store.forget(userId, id)
      }
      return
    }
    const collection = collectionOf(kind, record)
    const chosen = writing && writing.userId === userId && writing.kind === kind && writing.collection === collection ? writing.name : null
    const name = row?.name ?? chosen ?? `${id}${EXT[kind]}`
    if (row && row.collection !== collection) {
      // Moved to another calendar on the JSON side: gone from the old collection, new in the other.
      store.log(userId, kind, row.collection, row.name, true)
      store.move(userId, id, collection)
    }
    if (!row) store.place({ record_id: id, user_id: userId, kind, collection, name, main: 1, original: null, original_etag: null })
    // Every calendar_name an event takes is a calendar, every list_name a task list (kept, like MKCALENDAR's, once emptied).
    if (kind !== 'card' && !record.deleted_at) store.addCalendar(userId, collection, new Date(now()).toISOString(), kind)
    store.log(userId, kind, collection, name, Boolean(record.deleted_at))
  }

  const birthdays = birthdayObjects(service, store)
  deps.events.on('contact.*', (e) => {
    onChange('card', e)
    birthdays.contactChanged(e)
    groups.contactChanged(e)
  })
  deps.events.on('share.*', (e) => {
    birthdays.shareChanged(e)
    const share = e.data as { kind?: string; name?: string | null; owner_id?: string; with_user_id?: string } | undefined
    const kind = (Object.keys(SHARE_KIND) as Kind[]).find((k) => SHARE_KIND[k] === share?.kind)
    // Once per share (its owner's event): the sharee's sync of it starts here.
    if (e.type === 'share.created' && kind && share?.owner_id && share.with_user_id && e.userId === share.owner_id)
      store.markShared(share.owner_id, share.with_user_id, kind, kind === 'card' ? ADDRESS_BOOK : String(share.name ?? ''))
  })
  deps.events.on('event.*', (e) => onChange('event', e))
  deps.events.on('task.*', (e) => onChange('task', e))

  // ---- reading ----
  const fetch = (userId: string, kind: Kind, id: string): ApiRecord | null => {
    try {
      return service.get(userId, RESOURCE[kind], id)
    } catch (err) {
      if (err instanceof HttpError && err.statusCode === 404) return null
      throw err
    }
  }

  /**
   * The records of a collection's kind the user reads there: their own, or (a shared collection)
   * those of its owner that the records service lets them read now, filtered to that owner.
   */
  function* recordsFor(userId: string, c: Collection, rows: number): Generator<ApiRecord[]> {
    const resource = RESOURCE[c.kind]
    if (c.owner === undefined) return yield* service.batches(userId, resource, { rows, own: true })
    for (const batch of service.batches(userId, resource, { rows })) {
      const owned = batch.filter((r) => r.owner_id === c.owner)
      if (owned.length) yield owned
    }
  }
  const allFor = (userId: string, c: Collection) =>
    c.owner === undefined ? service.listAll(userId, RESOURCE[c.kind]) : [...recordsFor(userId, c, 256)].flat()

  /** Every object of a collection, in one pass over the user's records. */
  const members = (userId: string, c: Collection): DavObject[] => {
    if (isBirthdays(c)) return birthdays.members(userId)
    if (c.invitations) {
      const objs = service.access.invitedTo(userId).map((id) => invitation(userId, `${id}${EXT.event}`))
      const listed = objs.filter((o): o is DavObject => o !== null)
      // What a client was given is remembered, so that its leaving is logged (invitations from before this table too).
      for (const o of listed) {
        const id = (o.records[0] as ApiRecord).id
        if (!store.invitees(id).includes(userId)) store.setInvited(id, userId, true)
      }
      return listed
    }
    const rows = store.locations(homeOf(userId, c), c.kind)
    const nameOf = (r: ApiRecord) => rows.get(r.id)?.name ?? `${r.id}${EXT[c.kind]}`
    if (c.kind === 'card') {
      const contacts = allFor(userId, c)
      return [
        ...contacts.map((r) => ({ name: nameOf(r), records: [r], etag: objectEtag([r]) })),
        ...groups.members(bookOf(userId, c), contacts),
      ]
    }
    if (c.kind === 'task') {
      return allFor(userId, c)
        .filter((r) => r.list_name === c.name)
        .map((r) => ({ name: nameOf(r), records: [r], etag: objectEtag([r]) }))
    }
    const all = allFor(userId, c)
    const series = new Map<string, ApiRecord[]>()
    for (const r of all) if (!r.recurrence_id && r.calendar_name === c.name) series.set(r.id, [r])
    for (const r of all) if (r.recurrence_id) series.get(String(r.recurrence_id))?.push(r)
    return [...series.values()].map((rs) => ({ name: nameOf(rs[0] as ApiRecord), records: rs, etag: objectEtag(rs) }))
  }

  /**
   * The same members, made as the answer asks for them: an address book's cards are read a batch at
   * a time (a PROPFIND over thousands of contacts never holds them all, and reading them does not
   * hold the event loop); a calendar's series need their overrides, so it is read whole as above.
   */
  function* eachMember(userId: string, c: Collection): Generator<DavObject> {
    if (c.kind !== 'card') return yield* members(userId, c)
    const rows = store.locations(homeOf(userId, c), c.kind)
    const grouped: Array<Record<string, unknown>> = []
    for (const batch of recordsFor(userId, c, 16)) {
      for (const r of batch) {
        if ((r.groups as unknown[] | undefined)?.length) grouped.push({ owner_id: r.owner_id, groups: r.groups })
        yield { name: rows.get(r.id)?.name ?? `${r.id}${EXT[c.kind]}`, records: [r], etag: objectEtag([r]) }
      }
    }
    yield* groups.members(bookOf(userId, c), grouped)
  }

  const overridesOf = (userId: string, home: string, seriesId: string): ApiRecord[] =>
    store
      .parts(home, seriesId)
      .map((id) => fetch(userId, 'event', id))
      .filter((r): r is ApiRecord => r !== null && r.recurrence_id === seriesId)

  /** An Invitations object: another member's event naming the user among its attendees, with its overrides; or null. */
  const invitation = (userId: string, name: string): DavObject | null => {
    const id = UUID_NAME.exec(name)?.[1]
    const main = id && name.endsWith(EXT.event) ? fetch(userId, 'event', id) : null
    if (!main || main.recurrence_id || main.owner_id === userId) return null
    const email = service.access.emailOf(userId)
    if (!(main.attendees as Array<{ email: string }> | undefined)?.some((a) => a.email.toLowerCase() === email)) return null
    const rs = [main, ...overridesOf(userId, String(main.owner_id), main.id)]
    return { name, records: rs, etag: objectEtag(rs) }
  }

  /** The object at a name in a collection, or null. */
  const find = (userId: string, c: Collection, name: string): DavObject | null => {
    if (isBirthdays(c)) return birthdays.find(userId, name)
    const group = c.kind === 'card' ? groups.find(bookOf(userId, c), name) : null
    if (group) return group
    if (c.invitations) return invitation(userId, name)
    const home = homeOf(userId, c)
    const row = store.byName(home, c.kind, c.name, name)
    const id = row?.record_id ?? UUID_NAME.exec(name)?.[1]
    if (!id) return null
    const main = fetch(userId, c.kind, id)
    if (!main || main.recurrence_id || !inCollection(userId, c, main)) return null
    // A record that has a row is known by the row's name only.
    if (!row) {
      const other = store.byRecord(home, id)
      if (other && other.name !== name) return null
    }
    const rs = c.kind === 'event' ? [main, ...overridesOf(userId, home, id)] : [main]
    return { name, records: rs, etag: objectEtag(rs) }
  }

  /**
   * An invitation names its organizer (RFC 6638: clients read ORGANIZER to show an event as one
   * the user is invited to, and offer answers instead of edits): the one a client wrote, else the
   * organizer member's address and name.
   */
  const organizerOf = (main: ApiRecord, kept: Map<string, StoredProperty[]>) => {
    const lines = kept.get(main.id) ?? []
    const organizer = lines.some(([n]) => n === 'ORGANIZER') ? undefined : deps.member?.(String(main.owner_id))
    if (!organizer) return
    const name = organizer.name?.trim()
    kept.set(main.id, [['ORGANIZER', name ? [['CN', [name]]] : [], `mailto:${organizer.email}`], ...lines])
  }

  /** The object's text: as its client wrote it while the record is unchanged, else written from the record. */
  const render = (userId: string, c: Collection, obj: DavObject): string => {
    if (obj.group) return groups.render(bookOf(userId, c), obj as GroupObject)
    const main = obj.records[0] as ApiRecord
    if (isBirthdays(c)) return writeCalendar(main, [], new Map(), now())
    // An invitation is always written from the record: its attendees' answers are the record's.
    const row = c.invitations ? undefined : store.byRecord(homeOf(userId, c), main.id)
    if (row?.original && row.original_etag === obj.etag) return row.original
    const kept = service.propertiesOf(
      userId,
      RESOURCE[c.kind],
      obj.records.map((r) => r.id),
    )
    if (c.kind === 'card') return writeCard(main, kept.get(main.id) ?? [], records.photos.bytesOf(main))
    if (c.kind === 'task') return writeTodo(main, kept.get(main.id) ?? [], parentUid(userId, main), now())
    if (c.invitations) organizerOf(main, kept)
    return writeCalendar(main, obj.records.slice(1), kept, now())
  }

  // ---- writing ----
  const checkPreconditions = (current: DavObject | null, ifMatch: string | undefined, ifNoneMatch: string | undefined) => {
    const tag = current?.etag ?? null
    if ((ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, tag)) || (ifMatch !== undefined && !ifMatchHolds(ifMatch, tag))) {
      throw new HttpError('PRECONDITION_FAILED', 'The object changed since you read it (If-Match / If-None-Match)')
    }
  }

  /** A full replacement as a patch: every field the body leaves out returns to its default. */
  const replacement = (resource: ResourceName, current: ApiRecord, body: Record<string, unknown>) => {
    const def = service.definition(resource)
    const defaults = def.defaults as Record<string, unknown>
    const patch: Record<string, unknown> = {}
    // Fields only imports and the service write (an override's series, a contact's has_photo) are no PATCH's.
    for (const [k, v] of Object.entries(defaults)) if (!(k in (def.importExtras ?? {}))) patch[k] = v
    Object.assign(patch, body)
    const next = (body.custom_fields ?? null) as Record<string, unknown> | null
    const old = (current.custom_fields ?? null) as Record<string, unknown> | null
    if (next && old) for (const key of Object.keys(old)) if (!(key in next)) next[key] = null
    patch.custom_fields = next
    return patch
  }

  const withName = <T>(userId: string, kind: Kind, collection: string, name: string, fn: () => T): T => {
    writing = { userId, kind, collection, name }
    try {
      return fn()
    } finally {
      writing = null
    }
  }

  /**
   * A card's photo follows the card: its inline PHOTO, re-encoded, replaces the stored one; a card
   * without one Hearth could read removes it (a PHOTO by URI, or an image Hearth cannot decode, stays
   * among the card's kept lines, written back as the client wrote it).
   */
  const withCardPhoto = (userId: string, obj: DavObject, photo: PreparedPhoto | null): DavObject => {
    const record = obj.records[0] as ApiRecord
    let now: ApiRecord | null = null
    if (photo) now = records.photos.set(userId, record.id, photo)
    else if (record.has_photo) now = records.photos.remove(userId, record.id)
    return now ? { ...obj, records: [now], etag: objectEtag([now]) } : obj
  }

  const remember = (userId: string, c: Collection, name: string, text: string | null, obj: DavObject) => {
    const main = obj.records[0] as ApiRecord
    store.place({
      record_id: main.id,
      user_id: homeOf(userId, c),
      kind: c.kind,
      collection: c.name,
      name,
      main: 1,
      original: text,
      original_etag: obj.etag,
    })
  }

  /**
   * RFC 4791 5.3.2.1 / RFC 6352 6.3.2.1: an object may not take the UID another object of the collection
   * holds, whichever side wrote that one: a client's UID is kept with its record, and a record Hearth
   * wrote (JSON API, an import without UIDs) is written with its id as its UID.
   */
  const checkUid = (userId: string, c: Collection, uid: string | undefined, self: string | undefined) => {
    if (!uid) return
    const resource = RESOURCE[c.kind]
    const home = homeOf(userId, c)
    const own = HEARTH_UID.exec(uid.trim())?.[1]?.toLowerCase()
    // The collection's owner's UIDs; each record named is then read as the user (and must be in the collection).
    const ids = new Set(service.recordsWithProperty(home, resource, 'UID', uid))
    if (own && !ids.has(own)) {
      // Known by its id only while no client gave it a UID of its own.
      const kept = service.propertiesOf(userId, resource, [own]).get(own) ?? []
      if (!kept.some(([n]) => n === 'UID')) ids.add(own)
    }
    for (const id of ids) {
      if (id === self) continue
      const other = fetch(userId, c.kind, id)
      if (other && !other.recurrence_id && inCollection(userId, c, other))
        throw new UidConflict(store.byRecord(home, id)?.name ?? `${id}${EXT[c.kind]}`)
    }
  }

  /** The UID a task's parent is known by (RELATED-TO): the one its client gave, else Hearth's. */
  const parentUid = (userId: string, task: ApiRecord): string | undefined => {
    const id = task.parent_id as string | null
    if (!id) return undefined
    const kept = service.propertiesOf(userId, 'tasks', [id]).get(id) ?? []
    return kept.find(([n]) => n === 'UID')?.[2] ?? `${id}@hearth`
  }

  /** A parent task named by UID: Hearth's own (`<id>@hearth`) or one a client gave; undefined when unknown. */
  const taskByUid = (userId: string, home: string, uid: string): string | undefined => {
    const own = HEARTH_UID.exec(uid.trim())?.[1]?.toLowerCase()
    if (own && fetch(userId, 'task', own)?.owner_id === home) return own
    // The owner's UIDs, each read as the user: a task of a list not shared with them is unknown here,
    // as it is everywhere else (its RELATED-TO is kept), never an existence told by a refused link.
    return service.recordsWithProperty(home, 'tasks', 'UID', uid).find((id) => fetch(userId, 'task', id)?.owner_id === home)
  }

  /**
   * A card without CATEGORIES keeps the contact's groups, unless the card its client wrote before had
   * them (the client removed the last one): Apple's Contacts never writes CATEGORIES (its groups are
   * group cards), and its edits of a contact must not take the contact out of its groups.
   */
  const keepGroups = (home: string, body: Record<string, unknown>, current: DavObject | null) => {
    const main = current?.records[0]
    if (!main || (body.groups as unknown[] | undefined)?.length) return body
    const previous = store.byRecord(home, main.id)?.original
    const hadCategories = previous ? contentLines(previous).some((l) => l.name === 'CATEGORIES') : false
    return hadCategories ? body : { ...body, groups: main.groups }
  }

  /** Forgets a name whose record is gone (permanently deleted or in the trash): a new object takes it. */
  const release = (userId: string, c: Collection, name: string) => {
    const home = homeOf(userId, c)
    const row = store.byName(home, c.kind, c.name, name)
    if (row) store.forget(home, row.record_id)
  }

  return {
    members,
    eachMember,
    find,
    render,
    /**
     * What the user may do in a collection, as the records' access rules say: their own, another
     * member's shared with them for writing or reading, or nothing (then it does not exist for them).
     */
    privilege(userId: string, c: Collection): Privilege {
      if (c.invitations) return 'attendee'
      if (c.owner === undefined) return 'owner'
      if (c.owner === userId) return null
      return service.access.level(userId, service.definition(RESOURCE[c.kind]), c.owner, shareTarget(c))
    },
    /** The members who share at least one collection with the user (whose principals the user may read). */
    owners: (userId: string): string[] => service.access.ownersSharingWith(userId),
    /** The collections of this kind other members share with the user. */
    sharedWith(userId: string, kind: Kind): Collection[] {
      return service.access
        .grants(userId, SHARE_KIND[kind])
        .map((g) => ({ kind, name: kind === 'card' ? ADDRESS_BOOK : g.target, owner: g.owner }))
    },
    /**
     * The user's calendars (or task lists): 'default', MKCALENDAR's and every calendar_name events
     * took (list_name tasks took), read from the records once per process.
     */
    calendars(userId: string, kind: CalendarKind = 'event'): string[] {
      if (!listed.has(userId)) {
        const at = new Date(now()).toISOString()
        for (const r of service.listAll(userId, 'events')) if (!r.recurrence_id) store.addCalendar(userId, String(r.calendar_name), at)
        for (const r of service.listAll(userId, 'tasks')) store.addCalendar(userId, String(r.list_name), at, 'task')
        if (listed.size > 10_000) listed.clear()
        listed.add(userId)
      }
      // The birthdays calendar is in every calendar home, made from the contacts the member reads.
      return [...new Set(['default', ...(kind === 'event' ? [BIRTHDAYS] : []), ...store.calendars(userId, kind)])].sort()
    },

    /**
     * A card's inline PHOTO re-encoded for storing, before the PUT's synchronous write; null when it has
     * none, or one Hearth cannot read (a phone's card is not refused for its photo).
     */
    async cardPhoto(text: string): Promise<PreparedPhoto | null> {
      const root = parseComponents(text).roots[0]
      const inline = root ? cardPhoto(root) : null
      if (!inline) return null
      try {
        return await records.photos.prepare(inline.bytes)
      } catch (err) {
        if (err instanceof HttpError) return null
        throw err
      }
    },

    /**
     * PUT: creates or replaces the object; answers whether it was created and its new ETag. `photo` is
     * a card's inline PHOTO already re-encoded (null when the card has none Hearth could read).
     */
    put(
      userId: string,
      c: Collection,
      name: string,
      text: string,
      ifMatch?: string,
      ifNoneMatch?: string,
      photo: PreparedPhoto | null = null,
    ) {
      if (isBirthdays(c)) throw readOnly()
      if (c.kind === 'card' && isGroupCard(text)) return groups.put(bookOf(userId, c), name, text, ifMatch, ifNoneMatch)
      const current = find(userId, c, name)
      if (current?.group) throw new HttpError('CONFLICT', 'A contact group card is at this name: a contact cannot replace it')
      checkPreconditions(current, ifMatch, ifNoneMatch)
      if (!current) release(userId, c, name)
      const resource = RESOURCE[c.kind]
      const home = homeOf(userId, c)
      // A new record in a collection shared with the user is its owner's (the service checks the user may write there).
      const owned = (body: Record<string, unknown>) => (c.owner === undefined ? body : { ...body, owner_id: c.owner })
      let obj: DavObject
      let keepText = true
      /** A contact or a task: one record, created or replaced, with the lines kept beside it. */
      const single = (body: Record<string, unknown>, kept: StoredProperty[]): DavObject => {
        const record = withName(home, c.kind, c.name, name, () =>
          current
            ? service.update(
                userId,
                resource,
                (current.records[0] as ApiRecord).id,
                replacement(resource, current.records[0] as ApiRecord, body),
              )
            : service.create(userId, resource, owned(body), { source: 'dav' }),
        )
        service.setProperties(userId, resource, record.id, kept)
        return { name, records: [record], etag: objectEtag([record]) }
      }
      if (c.kind === 'card') {
        const card = readCard(text)
        const uid = card.kept.find(([n]) => n === 'UID')?.[2]
        checkUid(userId, c, uid, current?.records[0]?.id)
        // A photo Hearth stores is written back from the store, re-encoded: the card's own line and text are not kept.
        const kept = photo ? card.kept.filter(([n]) => n !== 'PHOTO' && !n.endsWith('.PHOTO')) : card.kept
        obj = withCardPhoto(userId, single(keepGroups(home, card.body, current), kept), photo)
        keepText = !photo
        groups.claim(bookOf(userId, c), uid, (obj.records[0] as ApiRecord).id)
        // Claimed by a group: the record changed after the write, and so did its tag.
        const latest = fetch(userId, 'card', (obj.records[0] as ApiRecord).id)
        if (latest && latest.etag !== obj.etag) obj = { name, records: [latest], etag: objectEtag([latest]) }
      } else if (c.kind === 'task') {
        const todo = readTodo(text, service.timezone, c.name)
        checkUid(userId, c, todo.uid, current?.records[0]?.id)
        const parent = todo.parentUid ? taskByUid(userId, home, todo.parentUid) : undefined
        // A parent not (yet) known keeps its RELATED-TO line: written back as the client wrote it.
        const kept: StoredProperty[] =
          todo.parentUid && !parent ? [...todo.kept, ['RELATED-TO', [['RELTYPE', ['PARENT']]], todo.parentUid]] : todo.kept
        obj = single({ ...todo.body, parent_id: parent ?? null }, kept)
      } else {
        const cal = readCalendar(text, service.timezone, c.name)
        checkUid(userId, c, cal.uid, current?.records[0]?.id)
        obj = withName(home, c.kind, c.name, name, () => {
          if (!current) {
            const entries = [
              { record: owned(cal.master.body), properties: cal.master.kept },
              ...cal.overrides.map((o) => ({
                record: owned({ ...o.body, series_uid: cal.uid, occurrence_start: o.occurrence_start }),
                properties: [['UID', [], cal.uid] as StoredProperty, ...o.kept],
              })),
            ]
            const result = records.occurrences.importAll(userId, entries, { source: 'dav' })
            if (result.failed.length) throw result.failed[0]?.error
            const [main, ...rest] = result.created
            if (!main) throw new HttpError('VALIDATION_ERROR', 'the event was refused', { field: 'body', constraint: 'format' })
            const created = [main, ...rest.filter((r) => r.recurrence_id === main.id)]
            return { name, records: created, etag: objectEtag(created) }
          }
          const seriesId = (current.records[0] as ApiRecord).id
          for (const o of current.records.slice(1)) service.remove(userId, resource, o.id, { permanent: true })
          const series = service.update(userId, resource, seriesId, replacement(resource, current.records[0] as ApiRecord, cal.master.body))
          service.setProperties(userId, resource, seriesId, cal.master.kept)
          const made = cal.overrides.length
            ? service.importMany(
                userId,
                resource,
                cal.overrides.map((o) => ({
                  ...owned(o.body),
                  recurrence_id: seriesId,
                  occurrence_start: o.occurrence_start,
                  properties: o.kept,
                })),
                { source: 'dav' },
              )
            : { created: [], failed: [] }
          if (made.failed.length) throw made.failed[0]?.error
          const all = [series, ...made.created]
          return { name, records: all, etag: objectEtag(all) }
        })
      }
      // A card's own text is not served back when it carried a photo: its bytes (and their EXIF) are not what is stored.
      remember(userId, c, name, keepText ? text : null, obj)
      return { created: !current, etag: obj.etag }
    },

    /**
     * PUT of an Invitations object: the member's new PARTSTAT answers the invitation (the series,
     * and each overridden occurrence whose own changed); anything else changed is refused
     * (AttendeeChangeRefused), and nothing is written.
     */
    answerInvitation(userId: string, name: string, text: string, ifMatch?: string, ifNoneMatch?: string) {
      const c: Collection = { kind: 'event', name: INVITATIONS, invitations: true }
      const current = invitation(userId, name)
      if (!current) throw new AttendeeChangeRefused('Only the organizer adds an event to your invitations')
      checkPreconditions(current, ifMatch, ifNoneMatch)
      const main = current.records[0] as ApiRecord
      const calendar = String(main.calendar_name)
      const before = readCalendar(render(userId, c, current), service.timezone, calendar)
      const answers = answersIn(before, readCalendar(text, service.timezone, calendar), service.access.emailOf(userId) ?? '')
      answers.forEach((status, i) => {
        if (status) service.answer(userId, (current.records[i] as ApiRecord).id, status)
      })
      return { etag: (invitation(userId, name) as DavObject).etag }
    },

    /** DELETE: the record goes to the trash, as DELETE on the JSON API does; an invitation is declined (RFC 6638 3.2.6). */
    remove(userId: string, c: Collection, name: string, ifMatch?: string) {
      if (isBirthdays(c)) throw readOnly()
      if (c.kind === 'card' && groups.remove(bookOf(userId, c), name, ifMatch)) return
      const current = find(userId, c, name)
      if (!current) throw new HttpError('NOT_FOUND', 'No such object')
      checkPreconditions(current, ifMatch, undefined)
      if (c.invitations) return void service.answer(userId, (current.records[0] as ApiRecord).id, 'declined')
      service.remove(userId, RESOURCE[c.kind], (current.records[0] as ApiRecord).id)
    },

    /** Whether a calendar object has an instance overlapping [from, to) (RFC 4791 9.9), recurrences expanded. */
    overlaps(obj: DavObject, from: number, to: number): boolean {
      return obj.records.some((r) => {
        // A task is in a range by its due date (its start without one); one with neither is in every range (RFC 4791 9.9).
        if ('list_name' in r) {
          const at = r.due_at ?? r.start_at
          return !at || (Date.parse(String(at)) >= from && Date.parse(String(at)) < to)
        }
        const start = Date.parse(String(r.start_at))
        const end = r.end_at ? Date.parse(String(r.end_at)) : start + (r.all_day ? 86_400_000 : 0)
        const length = Math.max(end - start, 0)
        const hit = (s: number) => s < to && (length ? s + length > from : s >= from)
        if (!r.recurrence) return hit(start)
        const zone = r.all_day ? 'UTC' : String(r.timezone ?? 'UTC')
        return occurrences(r.recurrence as Recurrence, start, from - length, to - 1, 64, zone).some(hit)
      })
    },
  }
}
export type Objects = ReturnType<typeof createObjects>
export type { ObjectRow }
