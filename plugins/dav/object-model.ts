import { HttpError } from '../../core/plugin-api.js'
import type { EventBus } from '../../core/plugin-api.js'
import type { ApiRecord, RecordsPluginService, ResourceName } from '../records/public.js'
import type { DavStore, Kind } from './store.js'
import type { Book, ContactGroups, GroupObject } from './contact-groups.js'

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
export const EXT: Record<Kind, string> = { card: '.vcf', event: '.ics', task: '.ics' }
export const RESOURCE: Record<Kind, ResourceName> = { card: 'contacts', event: 'events', task: 'tasks' }
/** The UID Hearth writes for a record without one of its own: its id (vCard 3: bare, vCard 4: urn:uuid:, iCalendar: @hearth). */
export const HEARTH_UID = /^(?:urn:uuid:)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:@hearth)?$/i

/** A PUT whose UID another object of the collection holds (`holder`, that object's name): answered 409 with no-uid-conflict. */
export class UidConflict extends HttpError {
  constructor(readonly holder: string) {
    super('CONFLICT', 'Another object of this collection has that UID', { constraint: 'no-uid-conflict' })
  }
}

export const UUID_NAME = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(vcf|ics)$/

/** What the objects' modules are made of. */
export interface ObjectsDeps {
  records: RecordsPluginService
  store: DavStore
  groups: ContactGroups
  events: EventBus
  now: () => number
  /** A member by id (their name and email): an invitation names its organizer. */
  member?: (id: string) => { name?: string | null; email: string } | undefined
}

export const collectionOf = (kind: Kind, record: ApiRecord) =>
  kind === 'card' ? ADDRESS_BOOK : String(kind === 'task' ? record.list_name : record.calendar_name)
/** Whose DAV rows a collection's objects are filed under: the owner's for a shared one. */
export const homeOf = (userId: string, c: Collection) => c.owner ?? userId
/** An address book's contact groups, as the user reads and writes them (contact-groups.ts). */
export const bookOf = (userId: string, c: Collection): Book => ({ caller: userId, owner: homeOf(userId, c) })
/** Whether a record the user may read belongs in collection `c` (theirs, or the sharing member's). */
export const inCollection = (userId: string, c: Collection, r: ApiRecord) =>
  r.owner_id === homeOf(userId, c) && collectionOf(c.kind, r) === c.name
