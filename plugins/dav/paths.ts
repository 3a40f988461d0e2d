import { ADDRESS_BOOK, type Collection } from './objects-service.js'
import { SHARED_PREFIX, sharedSegment } from './shared.js'
import { INVITATIONS } from './invitations.js'

/**
 * The URL space under /dav/ (RFC 6764 discovery lands on /dav/):
 *   /dav/                                the root: current-user-principal
 *   /dav/principal/                      the signed-in user
 *   /dav/calendars/                      calendar home: one calendar per calendar_name
 *   /dav/calendars/<name>/<object>.ics   a calendar object resource
 *   /dav/calendars/tasks-<list>/         a task list: the tasks of one list_name (VTODO objects)
 *   /dav/addressbooks/                   address-book home
 *   /dav/addressbooks/contacts/<object>  a vCard
 *   /dav/calendars/shared-<owner>-<name>/, /dav/addressbooks/shared-<owner>-contacts/
 *                                        a collection another member shares with the user (shared.ts)
 *   /dav/calendars/invitations/         the events of other members that name the user among their attendees (invitations.ts)
 *   /dav/principals/<id>/                the principal of a member who shares with the user (a shared collection's owner)
 */
export const ROOT = '/dav/'
export const PRINCIPAL = '/dav/principal/'
export const CALENDAR_HOME = '/dav/calendars/'
export const ADDRESSBOOK_HOME = '/dav/addressbooks/'
export const MEMBER_PRINCIPALS = '/dav/principals/'
/**
 * A task list's collection is its list_name behind this prefix, in the calendar home beside the
 * calendars (a list and a calendar may both be called 'default'). A calendar_name starting with it
 * is therefore not reachable over DAV as a calendar (docs/api.md).
 */
export const TASK_LIST_PREFIX = 'tasks-'

export type Target =
  | { type: 'root' | 'principal' | 'calendar-home' | 'addressbook-home' }
  | { type: 'member'; id: string }
  | { type: 'collection'; collection: Collection }
  | { type: 'object'; collection: Collection; name: string }

const MAX_SEGMENT = 255

/** The target of a path under /dav/ (the part after it, still URL-encoded), or null for anything else. */
export function resolve(rest: string): Target | null {
  if (rest.length > 2048) return null
  let parts: string[]
  try {
    parts = rest
      .split('/')
      .filter(Boolean)
      .map((p) => decodeURIComponent(p))
  } catch {
    return null
  }
  if (parts.some((p) => p.length > MAX_SEGMENT || p === '.' || p === '..' || /[\u0000-\u001f]/.test(p))) return null
  const [first, second, third, ...more] = parts
  if (more.length) return null
  if (first === undefined) return { type: 'root' }
  if (first === 'principal') return second === undefined ? { type: 'principal' } : null
  if (first === 'principals') return second !== undefined && third === undefined ? { type: 'member', id: second } : null
  if (first === 'calendars') {
    if (second === undefined) return { type: 'calendar-home' }
    if (second === INVITATIONS) {
      const collection: Collection = { kind: 'event', name: INVITATIONS, invitations: true }
      return third === undefined ? { type: 'collection', collection } : { type: 'object', collection, name: third }
    }
    const shared = sharedSegment(second)
    const segment = shared?.segment ?? second
    const list = segment.startsWith(TASK_LIST_PREFIX) ? segment.slice(TASK_LIST_PREFIX.length) : null
    if (list === '') return null
    const collection: Collection = list === null ? { kind: 'event', name: segment } : { kind: 'task', name: list }
    if (shared) collection.owner = shared.owner
    return third === undefined ? { type: 'collection', collection } : { type: 'object', collection, name: third }
  }
  if (first === 'addressbooks') {
    if (second === undefined) return { type: 'addressbook-home' }
    const shared = sharedSegment(second)
    if ((shared?.segment ?? second) !== ADDRESS_BOOK) return null
    const collection: Collection = shared ? { kind: 'card', name: ADDRESS_BOOK, owner: shared.owner } : { kind: 'card', name: ADDRESS_BOOK }
    return third === undefined ? { type: 'collection', collection } : { type: 'object', collection, name: third }
  }
  return null
}

/** An href's path under /dav/ (absolute URLs are reduced to their path), or null outside it. */
export function davPath(href: string): string | null {
  let path = href.trim()
  const scheme = /^https?:\/\/[^/]*/i.exec(path)
  if (scheme) path = path.slice(scheme[0].length)
  if (path === '/dav') return ''
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : null
}

export const collectionPath = (c: Collection) => {
  const shared = c.owner === undefined ? '' : `${SHARED_PREFIX}${c.owner}-`
  return c.kind === 'card'
    ? `${ADDRESSBOOK_HOME}${shared}${ADDRESS_BOOK}/`
    : `${CALENDAR_HOME}${shared}${c.kind === 'task' ? TASK_LIST_PREFIX : ''}${encodeURIComponent(c.name)}/`
}

/** Whether two collections are the same one (the same kind and name, and the same owner: the user's own, or a member's shared with them). */
export const sameCollection = (a: Collection, b: Collection) =>
  a.kind === b.kind && a.name === b.name && a.owner === b.owner && !a.invitations === !b.invitations

export const memberPrincipal = (id: string) => `${MEMBER_PRINCIPALS}${encodeURIComponent(id)}/`

export const objectPath = (c: Collection, name: string) => `${collectionPath(c)}${encodeURIComponent(name)}`
