import { type HearthEvent, HttpError } from '../../core/plugin-api.js'
import type { ApiRecord } from '../records/public.js'
import { SHARE_KIND } from './shared.js'
import { INVITATION_LOG, INVITATIONS } from './invitations.js'
import type { Kind } from './store.js'
import type { birthdayObjects } from './birthdays.js'
import { ADDRESS_BOOK, collectionOf, EXT, type ObjectsDeps, RESOURCE } from './object-model.js'

/**
 * The change log of the DAV objects (sync-collection, getctag), fed by the records' events (JSON API,
 * imports, DAV alike); `withName` runs a PUT's write so that the record it creates takes the
 * client's name.
 */
export function createChangeLog(deps: ObjectsDeps, birthdays: ReturnType<typeof birthdayObjects>) {
  const { records, store, now, groups } = deps
  const { service } = records
  /** The object a PUT is writing: its created record takes the name the client chose. */
  let writing: { userId: string; kind: Kind; collection: string; name: string } | null = null

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

  const withName = <T>(userId: string, kind: Kind, collection: string, name: string, fn: () => T): T => {
    writing = { userId, kind, collection, name }
    try {
      return fn()
    } finally {
      writing = null
    }
  }

  return { withName }
}
