import { HttpError } from '../../core/plugin-api.js'
import type { ApiRecord } from '../records/public.js'
import { objectEtag } from './objects.js'
import type { Kind } from './store.js'
import { type birthdayObjects, isBirthdays } from './birthdays.js'
import {
  bookOf,
  type Collection,
  type DavObject,
  EXT,
  homeOf,
  inCollection,
  type ObjectsDeps,
  RESOURCE,
  UUID_NAME,
} from './object-model.js'

/** Reading the DAV objects: a collection's members, and the object at a name. */
export function createObjectReads(deps: ObjectsDeps, birthdays: ReturnType<typeof birthdayObjects>) {
  const { records, store, groups } = deps
  const { service } = records

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

  return { fetch, members, eachMember, invitation, find }
}
