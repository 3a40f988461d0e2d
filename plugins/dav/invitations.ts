import { HttpError } from '../../core/plugin-api.js'
import type { StoredProperty } from '../records/public.js'
import type { ParsedCalendar } from './objects.js'

/**
 * A member's invitations over CalDAV: one calendar collection in their calendar home,
 *   /dav/calendars/invitations/<event id>.ics
 * listing each event of another member that names them among its attendees, as the organizer's
 * event with the member's own ATTENDEE carrying their answer as PARTSTAT. The member reads it and
 * changes one thing: their own PARTSTAT (an attendee's part of implicit scheduling, RFC 6638
 * 3.2.2.1), which answers the invitation as the JSON API's rsvp does. Deleting the object declines.
 * A calendar_name of the member's own called `invitations` is therefore not reachable over DAV.
 */
export const INVITATIONS = 'invitations'
export const INVITATIONS_DISPLAYNAME = 'Invitations'
/** The change log's kind for the collection: its entries never mix with a calendar's of the same name. */
export const INVITATION_LOG = 'invitation' as const

/** The answers an attendee gives (the rsvp's statuses); NEEDS-ACTION is where an invitation starts, not an answer. */
const ANSWERS = new Set(['accepted', 'declined', 'tentative'])

/** Refused: a change an attendee may not make. Answered 403 with CALDAV:allowed-attendee-scheduling-object-change. */
export class AttendeeChangeRefused extends HttpError {
  constructor(message: string) {
    super('FORBIDDEN', message)
  }
}

interface Attendee {
  email: string
  status?: string
}
type Body = Record<string, unknown>

const lower = (s: unknown) => String(s ?? '').toLowerCase()
/** The member's own status in a body's attendees, or undefined when it does not name them. */
const ownStatus = (body: Body, email: string) => (body.attendees as Attendee[] | undefined)?.find((a) => lower(a.email) === email)?.status

/**
 * What a body holds that the attendee may not change: everything but their own status and the
 * alarms (a client adds its user's own reminders to an invitation: they are not kept, and refusing
 * them would refuse every answer from such a client).
 */
function fixed(body: Body, email: string): string {
  const { attendees, reminders: _r, ...rest } = body
  const others = ((attendees as Attendee[] | undefined) ?? [])
    .map((a) => ({ email: lower(a.email), status: lower(a.email) === email ? null : (a.status ?? null) }))
    .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))
  const sorted = Object.keys(rest)
    .sort()
    .map((k) => [k, rest[k]])
  return JSON.stringify([sorted, others])
}

/**
 * Who a component names as its organizer: its own ORGANIZER's address (a calendar user address
 * compares without case), else the series' (clients write it in each overridden occurrence, or
 * only in the series).
 */
const organizerIn = (kept: StoredProperty[], series?: string): string | undefined => {
  const value = kept.find(([n]) => n === 'ORGANIZER')?.[2]
  return value === undefined ? series : value.trim().toLowerCase()
}

/**
 * The answers a PUT of an invitation gives: for the series (index 0) and each overridden
 * occurrence (index i + 1), the member's new status where it changed. Throws AttendeeChangeRefused
 * when the new text changes anything else (RFC 6638 3.2.2.1: an attendee changes only their own
 * participation; the organizer named, or left out, is a change too), or sets their status back to
 * NEEDS-ACTION.
 */
export function answersIn(current: ParsedCalendar, next: ParsedCalendar, email: string): Array<string | null> {
  if (current.uid !== next.uid) throw new AttendeeChangeRefused('An invitation keeps its UID')
  if (current.overrides.length !== next.overrides.length)
    throw new AttendeeChangeRefused('Only the organizer adds or removes occurrences of an invitation')
  // ORGANIZER is no field of the record (it is kept with its lines): compared on its own (RFC 6638 3.2.2.1).
  const wasOrganizer = organizerIn(current.master.kept)
  const nowOrganizer = organizerIn(next.master.kept)
  const pairs: Array<[Body, Body, string | undefined, string | undefined]> = [
    [current.master.body, next.master.body, wasOrganizer, nowOrganizer],
  ]
  for (const o of current.overrides) {
    const theirs = next.overrides.find((n) => n.occurrence_start === o.occurrence_start)
    if (!theirs) throw new AttendeeChangeRefused('Only the organizer changes the occurrences of an invitation')
    pairs.push([o.body, theirs.body, organizerIn(o.kept, wasOrganizer), organizerIn(theirs.kept, nowOrganizer)])
  }
  return pairs.map(([was, now, organizerWas, organizerNow]) => {
    if (organizerWas !== organizerNow) throw new AttendeeChangeRefused('As an attendee you cannot change the organizer (ORGANIZER)')
    if (fixed(was, email) !== fixed(now, email))
      throw new AttendeeChangeRefused('As an attendee you change only your own participation status (PARTSTAT)')
    const before = ownStatus(was, email)
    const after = ownStatus(now, email)
    if (after === undefined || after === before) return null
    if (!ANSWERS.has(after)) throw new AttendeeChangeRefused('Answer an invitation with ACCEPTED, DECLINED or TENTATIVE')
    return after
  })
}
