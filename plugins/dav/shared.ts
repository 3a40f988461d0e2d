import type { Collection } from './objects-service.js'

/**
 * Collections other members share with the signed-in user, as they appear in the user's own homes.
 *
 * A shared collection's href is its owner's href segment behind `shared-<owner id>-`:
 *   /dav/calendars/shared-<owner id>-<calendar_name>/       the owner's calendar
 *   /dav/calendars/shared-<owner id>-tasks-<list_name>/     the owner's task list
 *   /dav/addressbooks/shared-<owner id>-contacts/           the owner's address book
 * The owner id (a UUID) makes the href stable (the same while the share lasts, whatever its access)
 * and keeps two owners' calendars of the same name apart. Clients show the displayname, never the
 * href: "<the owner's name for it> (<the owner's name>)". A calendar_name of the user's own that
 * starts with `shared-<a UUID>-` is therefore not reachable over DAV (as a `tasks-` one is not as
 * a calendar).
 */
export const SHARED_PREFIX = 'shared-'
const SHARED = /^shared-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-(.+)$/

/** A home segment naming another member's collection: the owner and the owner's own segment; null otherwise. */
export function sharedSegment(segment: string): { owner: string; segment: string } | null {
  const m = SHARED.exec(segment)
  return m ? { owner: m[1] as string, segment: m[2] as string } : null
}

/**
 * What the user may do in a collection: theirs, shared for writing or for reading, their
 * Invitations (answer them: invitations.ts), or nothing (not found).
 */
export type Privilege = 'owner' | 'write' | 'read' | 'attendee' | null

/** The share kind naming a collection's kind (access.ts's vocabulary), and the collection as a share names it. */
export const SHARE_KIND = { event: 'calendar', task: 'tasklist', card: 'addressbook' } as const
export const shareTarget = (c: Collection) => (c.kind === 'card' ? '' : c.name)

/** "Family (Anna)": the owner's name for the collection, then whose it is. */
export const sharedDisplayName = (name: string, ownerName: string) => `${name} (${ownerName})`
