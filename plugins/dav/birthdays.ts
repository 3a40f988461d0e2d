import { type HearthEvent, HttpError } from '../../core/plugin-api.js'
import { type ApiRecord, BIRTHDAYS, type Occasion, OCCASIONS, occasionEvent, type RecordsService } from '../records/public.js'
import type { DavStore } from './store.js'

/**
 * The birthdays calendar over CalDAV: a read-only calendar collection in every calendar home, one
 * object per contact and occasion (`<contact id>-birthday.ics`, `-anniversary.ics`) holding a
 * yearly all-day VEVENT. It shows what the member may read of contacts (their address book and
 * those shared with them); a contact's change is logged as a change of its objects for everyone
 * who reads it, so sync-collection and getctag see it.
 */
export { BIRTHDAYS }

export const isBirthdays = (c: { kind: string; name: string; owner?: string }) =>
  c.kind === 'event' && c.name === BIRTHDAYS && c.owner === undefined

const NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-(birthday|anniversary)\.ics$/

export const occasionName = (contactId: string, occasion: Occasion) => `${contactId}-${occasion}.ics`

export function readOnly(): HttpError {
  return new HttpError('FORBIDDEN', "The birthdays calendar is read-only: it shows contacts' birthdays (change the contact instead)")
}

export function birthdayObjects(service: RecordsService, store: DavStore) {
  const objectOf = (event: ApiRecord) => {
    const fields = event.custom_fields as { contact_id: string; occasion: Occasion }
    return { name: occasionName(fields.contact_id, fields.occasion), records: [event], etag: String(event.etag) }
  }

  /** Logs the objects of these contacts as changed for `reader` (gone when `gone`, or when the date is not there). */
  const logFor = (reader: string, contacts: Array<{ id: string } & Partial<ApiRecord>>, gone: boolean) => {
    for (const contact of contacts) {
      for (const occasion of OCCASIONS) {
        const absent = gone || Boolean(contact.deleted_at) || !contact[occasion]
        store.log(reader, 'event', BIRTHDAYS, occasionName(contact.id, occasion), absent)
      }
    }
  }

  return {
    members: (userId: string) => service.birthdays.series(userId).map(objectOf),

    find(userId: string, name: string) {
      const m = NAME.exec(name)
      if (!m) return null
      let contact: ApiRecord
      try {
        contact = service.get(userId, 'contacts', m[1] as string)
      } catch (err) {
        if (err instanceof HttpError && err.statusCode === 404) return null
        throw err
      }
      const event = occasionEvent(contact, m[2] as Occasion)
      return event ? objectOf(event) : null
    },

    /** A contact changed (any side, any cause): its occasions changed for each member who reads it. */
    contactChanged(event: HearthEvent) {
      if (!event.userId) return
      const action = event.type.slice(event.type.indexOf('.') + 1)
      const data = (event.data ?? {}) as ApiRecord & { ids?: string[] }
      const changed: ApiRecord[] =
        action === 'imported'
          ? (data.ids ?? []).map((id) => ({ id, owner_id: event.userId }) as ApiRecord)
          : event.id
            ? [{ ...data, id: event.id, owner_id: data.owner_id ?? event.userId }]
            : []
      if (!changed.length) return
      const permanent = action === 'deleted' && !('deleted_at' in data)
      for (const reader of service.readers('contacts', changed[0] as ApiRecord)) {
        // Imported: the records as they are now (the event lists ids only).
        const current = action === 'imported' ? changed.map((c) => readable(reader, c.id)).filter((c) => c !== null) : changed
        logFor(reader, current, permanent)
      }
    },

    /** An address book shared or unshared: its birthdays appear in (or leave) the sharee's calendar. */
    shareChanged(event: HearthEvent) {
      const share = event.data as { kind?: string; owner_id?: string; with_user_id?: string } | undefined
      if (share?.kind !== 'addressbook' || event.userId !== share.with_user_id || !share.owner_id) return
      const gone = event.type === 'share.deleted'
      const contacts = new Map<string, { id: string } & Partial<ApiRecord>>()
      for (const e of service.birthdays.series(share.owner_id, true)) {
        const f = e.custom_fields as { contact_id: string; occasion: Occasion }
        contacts.set(f.contact_id, { ...contacts.get(f.contact_id), id: f.contact_id, [f.occasion]: e.start_at })
      }
      logFor(share.with_user_id, [...contacts.values()], gone)
    },
  }

  function readable(userId: string, id: string): ApiRecord | null {
    try {
      return service.get(userId, 'contacts', id, { includeDeleted: true })
    } catch (err) {
      if (err instanceof HttpError) return null
      throw err
    }
  }
}
