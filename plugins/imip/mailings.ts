import type Database from 'better-sqlite3'
import { type HearthEvent, preparedOnUse } from '../../core/plugin-api.js'
import type { Mailer } from '../digest/public.js'
import type { RecordsService } from '../records/public.js'
import { calendarOf, type Method, type Organizer, textOf } from './message.js'

/**
 * Invitations by email to an event's attendees outside the household (iMIP, RFC 6047): when the
 * organizer saves an event naming addresses that are no member of this instance, each address
 * gets a METHOD:REQUEST message; a later change of what the message said (times, title, place,
 * rule, the addresses) sends it again with a greater SEQUENCE; an address taken off the event,
 * the event cancelled or deleted, gets METHOD:CANCEL. Members are invited inside Hearth instead.
 *
 * The message is the organizer's event (the owner of the calendar it is in), but the member whose
 * change sent it answers for it: a member writing a calendar shared with them is named in
 * ORGANIZER;SENT-BY and as the mail's Reply-To, and the message is counted against their own
 * allowance, never the owner's (a write share does not let one member spend another's).
 *
 * Bounded: one address per message, an address as the event schema validated it and no longer
 * than 254 characters, at most DAILY_LIMIT messages a member a UTC day, counted against the member
 * whose change sent them (in imip_sent, so a restart does not reset it). Past the limit a message
 * is not sent and a log line says how many were not (never to whom: logs hold no outside address).
 * The event is saved either way: mail goes out after the change, never as part of it. One
 * occurrence changed on its own (an override) is not mailed.
 */
export const DAILY_LIMIT = 100
const ADDRESS = /^[^\s<>,;:"()\\[\]]+@[^\s<>,;:"()\\[\]]+$/

interface Sent {
  event_id: string
  uid: string
  sequence: number
  recipients: string
  fingerprint: string
  event: string
}

interface Log {
  warn(obj: object, msg: string): void
}

export interface MailingsDeps {
  db: Database.Database
  mailer: Mailer
  records: RecordsService
  member: (idOrEmail: string) => { id: string; email: string; name: string | null } | undefined
  log: Log
  now: () => number
}

export function mailings({ db, mailer, records, member, log, now }: MailingsDeps) {
  const q = preparedOnUse(db, {
    get: () => db.prepare<[string], Sent>('SELECT * FROM imip_events WHERE event_id = ?'),
    put: () =>
      db.prepare(
        'INSERT INTO imip_events (event_id, owner_id, uid, sequence, recipients, fingerprint, event) VALUES (@event_id, @owner_id, @uid, @sequence, @recipients, @fingerprint, @event) ' +
          'ON CONFLICT (event_id) DO UPDATE SET sequence = excluded.sequence, recipients = excluded.recipients, fingerprint = excluded.fingerprint, event = excluded.event',
      ),
    remove: () => db.prepare('DELETE FROM imip_events WHERE event_id = ?'),
    // One more message today, unless the member already sent DAILY_LIMIT: changes() says which.
    count: () =>
      db.prepare(
        `INSERT INTO imip_sent (user_id, day, count) VALUES (?, ?, 1) ON CONFLICT (user_id, day) DO UPDATE SET count = count + 1 WHERE count < ${DAILY_LIMIT}`,
      ),
  })

  /** The addresses outside the household an event names (not its organizer, not a member), lower case. */
  const outsideOf = (organizer: string, event: Record<string, unknown>): string[] => {
    const attendees = Array.isArray(event.attendees) ? (event.attendees as Array<{ email?: unknown }>) : []
    const out = new Set<string>()
    for (const a of attendees) {
      const email = typeof a.email === 'string' ? a.email.toLowerCase() : ''
      if (email.length > 254 || !ADDRESS.test(email) || email === organizer || member(email)) continue
      out.add(email)
    }
    return [...out].sort()
  }

  const fingerprintOf = (event: Record<string, unknown>, recipients: string[]) =>
    JSON.stringify([
      event.title,
      event.description,
      event.location,
      event.start_at,
      event.end_at,
      event.all_day,
      event.timezone,
      event.recurrence,
      event.status,
      recipients,
    ])

  /** The UID clients know the event by: the one it came with (kept from its file), else Hearth's. */
  const uidOf = (owner: string, id: string) =>
    records
      .propertiesOf(owner, 'events', [id])
      .get(id)
      ?.find(([name]) => name === 'UID')?.[2] ?? `${id}@hearth`

  /** Sends `to` the message, each counted against `sender` (the member whose change it is), who is its Reply-To. */
  async function send(
    sender: { id: string; email: string; name: string | null },
    organizer: Organizer,
    to: string[],
    method: Method,
    event: Record<string, unknown>,
    sent: Pick<Sent, 'uid' | 'sequence'>,
  ) {
    const day = new Date(now()).toISOString().slice(0, 10)
    const allowed = to.filter(() => q.count.run(sender.id, day).changes === 1)
    if (allowed.length < to.length)
      log.warn(
        { userId: sender.id, eventId: event.id, notSent: to.length - allowed.length },
        `invitation emails past ${DAILY_LIMIT} today: not sent`,
      )
    const content = calendarOf(event, method, organizer, sent.uid, sent.sequence, now())
    const { subject, text } = textOf(event, method, organizer)
    const replyTo = { address: sender.email, name: sender.name }
    const failures = await mailer.send(allowed.map((to) => ({ to, subject, text, calendar: { method, content }, replyTo })))
    const failed = failures.filter((f) => f !== null)
    if (failed.length)
      log.warn(
        {
          userId: sender.id,
          eventId: event.id,
          failed: failed.length,
          reason: failed[0]?.message.replace(/[^\s<>]+@[^\s<>]+/g, '<address>'),
        },
        'invitation emails failed',
      )
  }

  return {
    /** An event was created, changed, deleted or restored: tells its outside attendees what changed for them. */
    async changed(e: HearthEvent): Promise<void> {
      if (!mailer.configured || e.userId === null || !e.id || typeof e.data !== 'object' || e.data === null) return
      const event = e.data as Record<string, unknown>
      if (event.recurrence_id) return
      const owner = member(e.userId)
      // Who made the change (a change no one asked for, the trash emptied by age, is the owner's).
      const sender = e.actorId ? member(e.actorId) : owner
      if (!owner || !sender) return
      const organizer: Organizer = { email: owner.email.toLowerCase(), name: owner.name }
      if (sender.id !== owner.id) organizer.sentBy = { email: sender.email.toLowerCase(), name: sender.name }
      const prior = q.get.get(e.id)
      const before: string[] = prior ? (JSON.parse(prior.recipients) as string[]) : []
      const off = e.type === 'event.deleted' || event.status === 'cancelled' || Boolean(event.deleted_at)
      if (off) {
        if (!prior) return
        if (e.type === 'event.deleted' && !event.deleted_at) q.remove.run(e.id)
        if (before.length === 0) return
        const last = JSON.parse(prior.event) as Record<string, unknown>
        const sent = { uid: prior.uid, sequence: prior.sequence + 1 }
        if (e.type !== 'event.deleted' || event.deleted_at)
          q.put.run({ event_id: e.id, owner_id: e.userId, ...sent, recipients: '[]', fingerprint: 'cancelled', event: prior.event })
        await send(sender, organizer, before, 'CANCEL', last, sent)
        return
      }
      const recipients = outsideOf(organizer.email, event)
      const fingerprint = fingerprintOf(event, recipients)
      if (prior ? prior.fingerprint === fingerprint : recipients.length === 0) return
      const sent = { uid: prior?.uid ?? uidOf(e.userId, e.id), sequence: prior ? prior.sequence + 1 : 0 }
      const json = JSON.stringify(event)
      q.put.run({ event_id: e.id, owner_id: e.userId, ...sent, recipients: JSON.stringify(recipients), fingerprint, event: json })
      const removed = before.filter((r) => !recipients.includes(r))
      if (recipients.length) await send(sender, organizer, recipients, 'REQUEST', event, sent)
      if (removed.length) await send(sender, organizer, removed, 'CANCEL', event, sent)
    },
  }
}
