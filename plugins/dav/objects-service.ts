import { occurrences, type Recurrence } from '../../lib/ical/recurrence.js'
import { type Privilege, SHARE_KIND, shareTarget } from './shared.js'
import type { CalendarKind, Kind, ObjectRow } from './store.js'
import { BIRTHDAYS, birthdayObjects } from './birthdays.js'
import { ADDRESS_BOOK, type Collection, type DavObject, type ObjectsDeps, RESOURCE } from './object-model.js'
import { createChangeLog } from './change-log.js'
import { createObjectReads } from './object-reads.js'
import { createRender } from './object-render.js'
import { createWriteRules } from './write-rules.js'
import { createObjectWrites } from './object-writes.js'

export { ADDRESS_BOOK, type Collection, type DavObject, UidConflict } from './object-model.js'

/**
 * The DAV view of a user's records: collections (the address book, one calendar per
 * calendar_name), the objects in them, writes through the records service, and the
 * change log the records' events feed (sync-collection, getctag).
 */
export function createObjects(deps: ObjectsDeps) {
  const { records, store, now } = deps
  const { service } = records
  /** Users whose calendar names were read from their events (records older than this plugin). */
  const listed = new Set<string>()

  const birthdays = birthdayObjects(service, store)
  const changeLog = createChangeLog(deps, birthdays)
  const reads = createObjectReads(deps, birthdays)
  const render = createRender(deps)
  const writes = createObjectWrites(deps, reads, render, createWriteRules(deps, reads.fetch), changeLog)

  return {
    members: reads.members,
    eachMember: reads.eachMember,
    find: reads.find,
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
    cardPhoto: writes.cardPhoto,
    put: writes.put,
    answerInvitation: writes.answerInvitation,
    remove: writes.remove,

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
