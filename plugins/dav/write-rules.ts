import { HttpError } from '../../core/plugin-api.js'
import { ifMatchHolds, ifNoneMatchHolds } from '../../lib/etag.js'
import type { ApiRecord, PreparedPhoto, ResourceName } from '../records/public.js'
import { contentLines, objectEtag } from './objects.js'
import type { Kind } from './store.js'
import {
  type Collection,
  type DavObject,
  EXT,
  HEARTH_UID,
  homeOf,
  inCollection,
  type ObjectsDeps,
  RESOURCE,
  UidConflict,
} from './object-model.js'

export const checkPreconditions = (current: DavObject | null, ifMatch: string | undefined, ifNoneMatch: string | undefined) => {
  const tag = current?.etag ?? null
  if ((ifNoneMatch !== undefined && !ifNoneMatchHolds(ifNoneMatch, tag)) || (ifMatch !== undefined && !ifMatchHolds(ifMatch, tag))) {
    throw new HttpError('PRECONDITION_FAILED', 'The object changed since you read it (If-Match / If-None-Match)')
  }
}

/** What a PUT of an object keeps to: its fields, its photo, its name and its UID among the collection's. */
export function createWriteRules(deps: ObjectsDeps, fetch: (userId: string, kind: Kind, id: string) => ApiRecord | null) {
  const { records, store } = deps
  const { service } = records

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

  return { replacement, withCardPhoto, remember, checkUid, taskByUid, keepGroups, release }
}
