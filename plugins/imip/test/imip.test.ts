import { spawnSync } from 'node:child_process'
import t from 'tap'
import digest from '../../digest/index.js'
import { smtpSink } from '../../digest/test/smtp-sink.js'
import records from '../../records/index.js'
import { household } from '../../records/test/sharing-app.js'
import imip from '../index.js'

/**
 * iMIP through a local SMTP sink: an event with attendees outside the household sends each of
 * them a METHOD:REQUEST message that Debian's python3-icalendar reads (ORGANIZER, ATTENDEE, UID,
 * SEQUENCE); an update sends a greater SEQUENCE, taking someone off or cancelling sends
 * METHOD:CANCEL; members get no email; past 100 messages a day nothing more is sent and the
 * event is saved all the same. A member writing another's shared calendar sends in the owner's
 * name but is named (ORGANIZER;SENT-BY, Reply-To) and spends their own daily allowance.
 */

const PYTHON = '/usr/bin/python3'
const hasIcalendar = spawnSync(PYTHON, ['-c', 'import icalendar']).status === 0
const skip = hasIcalendar ? false : 'python3-icalendar is not installed (apt install python3-icalendar; .ci/run installs it)'

// Reads one raw email: its text/calendar part's content type and what the calendar says.
const READ = `
import email, json, sys, icalendar
msg = email.message_from_string(sys.stdin.read())
parts = [p for p in msg.walk() if p.get_content_type() == 'text/calendar']
cal = icalendar.Calendar.from_ical(parts[0].get_payload(decode=True))
ev = [c for c in cal.walk('VEVENT')][0]
att = ev.get('ATTENDEE')
att = att if isinstance(att, list) else [att]
print(json.dumps({
  'content_type': parts[0]['Content-Type'],
  'method': str(cal.get('METHOD')),
  'uid': str(ev.get('UID')),
  'sequence': int(ev.get('SEQUENCE')),
  'organizer': str(ev.get('ORGANIZER')),
  'sent_by': ev.get('ORGANIZER').params.get('SENT-BY'),
  'reply_to': msg['Reply-To'],
  'attendees': [[str(a), a.params.get('PARTSTAT')] for a in att],
  'summary': str(ev.get('SUMMARY')),
  'status': str(ev.get('STATUS')) if ev.get('STATUS') else None,
}))
`

const read = (raw: string) => {
  const r = spawnSync(PYTHON, ['-c', READ], { input: raw, encoding: 'utf8', timeout: 30_000 })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout)
}

/** `n` addresses outside the household. */
const guests = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `guest${i}@elsewhere.test` }))
/** Long enough for a message that would be sent to have reached the sink. */
const settle = () => new Promise((r) => setTimeout(r, 300))

async function until(what: () => boolean, label: string) {
  for (let i = 0; i < 400 && !what(); i++) await new Promise((r) => setTimeout(r, 25))
  if (!what()) throw new Error(`waited in vain for ${label}`)
}

t.test('outside attendees get REQUEST, then a greater SEQUENCE, then CANCEL; members get none', { skip }, async (t) => {
  const smtp = await smtpSink(t)
  const { members } = await household(t, { plugins: [records, digest, imip], env: { HEARTH_SMTP_URL: smtp.url } })
  const [parent, kid] = members
  const made = await parent.call('POST', '/events', {
    title: 'Dinner',
    start_at: '2026-12-05T18:00:00Z',
    end_at: '2026-12-05T21:00:00Z',
    attendees: [{ email: 'Friend@Elsewhere.test', name: 'Friend' }, { email: kid.email }, { email: 'neighbour@elsewhere.test' }],
  })
  t.equal(made.status, 201)
  const id = made.body.data.id
  await until(() => smtp.messages.length === 2, 'two invitations')
  t.same(smtp.messages.map((m) => m.to).sort(), [['friend@elsewhere.test'], ['neighbour@elsewhere.test']], 'one each, no member')
  const first = read(smtp.messages[0]?.raw ?? '')
  t.match(first.content_type, /text\/calendar/)
  t.match(first.content_type, /method=REQUEST/i)
  t.match(first, { method: 'REQUEST', uid: `${id}@hearth`, sequence: 0, organizer: `mailto:${parent.email}`, summary: 'Dinner' })
  t.same(
    first.attendees.map((a: [string, string]) => a[0].toLowerCase()),
    ['mailto:friend@elsewhere.test', `mailto:${kid.email}`, 'mailto:neighbour@elsewhere.test'],
  )
  t.equal(first.attendees[0][1], 'NEEDS-ACTION', 'pending is NEEDS-ACTION on the wire')

  // The kid answers: nothing the outside attendees were told changed, no mail.
  await kid.call('POST', `/events/${id}/rsvp`, { status: 'accepted' })
  // Moved, and the neighbour taken off: a new SEQUENCE to the friend, a CANCEL to the neighbour.
  await parent.call('PATCH', `/events/${id}`, {
    start_at: '2026-12-06T18:00:00Z',
    attendees: [{ email: 'friend@elsewhere.test' }, { email: kid.email }],
  })
  await until(() => smtp.messages.length === 4, 'the update and the cancellation')
  const later = smtp.messages.slice(2).map((m) => ({ to: m.to[0], ...read(m.raw) }))
  t.match(
    later.find((m) => m.to === 'friend@elsewhere.test'),
    { method: 'REQUEST', sequence: 1, uid: `${id}@hearth` },
  )
  t.match(
    later.find((m) => m.to === 'neighbour@elsewhere.test'),
    { method: 'CANCEL', sequence: 1 },
  )

  // Cancelled: the friend hears of it, with a greater SEQUENCE still.
  await parent.call('PATCH', `/events/${id}`, { status: 'cancelled' })
  await until(() => smtp.messages.length === 5, 'the cancellation')
  t.match(read(smtp.messages[4]?.raw ?? ''), { method: 'CANCEL', sequence: 2, status: 'CANCELLED', uid: `${id}@hearth` })
  t.same(smtp.messages[4]?.to, ['friend@elsewhere.test'])
  // Deleted afterwards: the friend already knows; nothing more.
  await parent.call('DELETE', `/events/${id}?permanent=true`)
  await new Promise((r) => setTimeout(r, 200))
  t.equal(smtp.messages.length, 5)
})

t.test('at most 100 invitation emails a member a day; the event is saved all the same', { skip }, async (t) => {
  const smtp = await smtpSink(t)
  const { members } = await household(t, { size: 1, plugins: [records, digest, imip], env: { HEARTH_SMTP_URL: smtp.url } })
  const [parent] = members
  const made = await parent.call('POST', '/events', { title: 'Big party', start_at: '2026-12-31T20:00:00Z', attendees: guests(101) })
  t.equal(made.status, 201, 'saved')
  t.equal(made.body.data.attendees.length, 101)
  await until(() => smtp.messages.length === 100, '100 messages')
  await settle()
  t.equal(smtp.messages.length, 100, 'the 101st is not sent')
  // The counter is kept: a new event today sends nothing more.
  await parent.call('POST', '/events', {
    title: 'Another',
    start_at: '2026-12-30T20:00:00Z',
    attendees: [{ email: 'late@elsewhere.test' }],
  })
  await settle()
  t.equal(smtp.messages.length, 100, 'nor later that day')
})

t.test('a write-sharee’s change is mailed as the owner’s event SENT-BY the sharee, from the sharee’s allowance', { skip }, async (t) => {
  const smtp = await smtpSink(t)
  const { members } = await household(t, { size: 2, plugins: [records, digest, imip], env: { HEARTH_SMTP_URL: smtp.url } })
  const [alex, sam] = members
  t.equal((await alex.call('POST', '/shares', { kind: 'calendar', name: 'Family', with: sam.id, access: 'write' })).status, 201)
  const made = await sam.call('POST', '/events', {
    title: 'Picnic',
    start_at: '2026-12-05T12:00:00Z',
    calendar_name: 'Family',
    owner_id: alex.id,
    attendees: [{ email: 'friend@elsewhere.test' }],
  })
  t.equal(made.status, 201)
  t.equal(made.body.data.owner_id, alex.id, 'the event is the owner’s')
  await until(() => smtp.messages.length === 1, 'the invitation')
  const mail = read(smtp.messages[0]?.raw ?? '')
  t.match(
    mail,
    { method: 'REQUEST', organizer: `mailto:${alex.email}`, sent_by: `mailto:${sam.email}` },
    'the organizer, sent by the sharee',
  )
  t.match(mail.reply_to, sam.email, 'a reply by mail reaches the member who made the change')

  // Sam spends their own allowance on Alex's calendar: 100 messages today, then nothing more from Sam.
  const party = await sam.call('POST', '/events', {
    title: 'Party',
    start_at: '2026-12-31T20:00:00Z',
    calendar_name: 'Family',
    owner_id: alex.id,
    attendees: guests(100),
  })
  t.equal(party.status, 201)
  await until(() => smtp.messages.length === 100, '100 messages')
  await settle()
  t.equal(smtp.messages.length, 100, 'the sharee’s 101st message today is not sent')
  await sam.call('POST', '/events', { title: 'Sam’s own', start_at: '2026-12-20T20:00:00Z', attendees: [{ email: 'late@elsewhere.test' }] })
  await settle()
  t.equal(smtp.messages.length, 100, 'nor one for the sharee’s own event')

  // Alex spent none of it.
  await alex.call('POST', '/events', {
    title: 'Alex’s own',
    start_at: '2026-12-21T20:00:00Z',
    attendees: [{ email: 'aunt@elsewhere.test' }],
  })
  await until(() => smtp.messages.length === 101, 'the owner’s invitation')
  const own = read(smtp.messages[100]?.raw ?? '')
  t.match(own, { organizer: `mailto:${alex.email}`, summary: 'Alex’s own' })
  t.equal(own.sent_by, null, 'the owner’s own change names no one else')
  t.match(own.reply_to, alex.email)
})
