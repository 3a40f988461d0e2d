import t from 'tap'
import type { TestContext } from '../../../test/helper.js'
import { davBench, davMember, hrefs, PROPFIND, SYNC, tokenOf } from './dav-app.js'

/**
 * A member's invitations over CalDAV: the Invitations calendar in their home lists the events of
 * other members naming them, their PARTSTAT answering as the JSON API's rsvp does; nothing else
 * of the organizer's event changes from there.
 */
const HOME = '/dav/calendars/'
const INVITATIONS = '/dav/calendars/invitations/'
const privilegesOf = (body: string) =>
  [
    ...(/<d:current-user-privilege-set>([\s\S]*?)<\/d:current-user-privilege-set>/.exec(body)?.[1] ?? '').matchAll(
      /<d:privilege><(\w+:[\w-]+)\/><\/d:privilege>/g,
    ),
  ]
    .map((m) => m[1])
    .sort()
/** The member's ATTENDEE line of an object's text (unfolded). */
const attendeeLine = (text: string, email: string) =>
  text
    .replace(/\r\n[ \t]/g, '')
    .split('\r\n')
    .find((l) => l.startsWith('ATTENDEE') && l.toLowerCase().includes(`mailto:${email.toLowerCase()}`)) ?? ''
/** The text with the member's PARTSTAT set to `to`. */
const answered = (text: string, email: string, to: string) => {
  const unfolded = text.replace(/\r\n[ \t]/g, '')
  const line = attendeeLine(unfolded, email)
  return unfolded.replace(line, line.replace(/PARTSTAT=[A-Z-]+/, `PARTSTAT=${to}`))
}

async function setup(t: TestContext) {
  const b = await davBench(t)
  const kid = await davMember(b)
  const event = (
    await b.json('POST', '/api/v1/events', {
      title: 'Family dinner',
      start_at: '2026-12-01T18:00:00Z',
      end_at: '2026-12-01T20:00:00Z',
      calendar_name: 'Family',
      attendees: [
        { email: kid.email, name: 'Kid' },
        { email: 'friend@elsewhere.test', name: 'A friend' },
      ],
    })
  ).body.data
  const href = `${INVITATIONS}${event.id}.ics`
  return { b, kid, event, href }
}

t.test('the Invitations calendar: listed, read, queried, synced; privileges read and write-content', async (t) => {
  const { b, kid, event, href } = await setup(t)
  const home = await kid.dav('PROPFIND', HOME, PROPFIND('d:displayname', 'd:resourcetype'), { depth: '1' })
  t.equal(hrefs(home.body).get(INVITATIONS), 200, 'in the attendee’s home')
  t.match(home.body, '<d:displayname>Invitations</d:displayname>')
  const ownerHome = await b.dav('PROPFIND', HOME, PROPFIND('d:displayname'), { depth: '1' })
  t.notOk(hrefs(ownerHome.body).has(INVITATIONS), 'not in the organizer’s, who is invited to nothing')

  const props = await kid.dav('PROPFIND', INVITATIONS, PROPFIND('d:current-user-privilege-set', 'd:sync-token'), { depth: '0' })
  t.same(privilegesOf(props.body), ['d:read', 'd:read-current-user-privilege-set', 'd:write-content'], 'no bind, no unbind')
  const listing = await kid.dav('PROPFIND', INVITATIONS, PROPFIND('d:getetag'), { depth: '1' })
  t.same([...hrefs(listing.body).keys()], [INVITATIONS, href], 'Depth 1 lists the invitation at its event id')

  const got = await kid.dav('GET', href)
  t.equal(got.status, 200)
  t.match(got.body, 'SUMMARY:Family dinner')
  t.match(attendeeLine(got.body, kid.email), 'PARTSTAT=NEEDS-ACTION', 'pending reads NEEDS-ACTION')
  t.match(got.body.replace(/\r\n[ \t]/g, ''), `ORGANIZER;CN=Owner:mailto:${b.email}`, 'names its organizer')
  const etag = got.headers.etag as string

  const query = await kid.dav(
    'REPORT',
    INVITATIONS,
    '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20261201T000000Z" end="20261202T000000Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>',
    { depth: '1' },
  )
  t.same([...hrefs(query.body).keys()], [href], 'calendar-query')
  const multiget = await kid.dav(
    'REPORT',
    INVITATIONS,
    `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><d:href>${href}</d:href></c:calendar-multiget>`,
    { depth: '1' },
  )
  t.match(multiget.body, 'SUMMARY:Family dinner', 'calendar-multiget')
  const first = await kid.dav('REPORT', INVITATIONS, SYNC(), { depth: '1' })
  t.same([...hrefs(first.body).keys()], [href], 'sync-collection lists it')
  let token = tokenOf(first.body)

  // The organizer edits: a new ETag, and the change in the attendee's sync.
  await b.json('PATCH', `/api/v1/events/${event.id}`, { title: 'Family dinner at Gran’s' })
  const edited = await kid.dav('GET', href)
  t.not(edited.headers.etag, etag, 'the organizer’s edit changes the ETag')
  t.match(edited.body, 'SUMMARY:Family dinner at Gran’s')
  const sync = await kid.dav('REPORT', INVITATIONS, SYNC(token), { depth: '1' })
  t.same([...hrefs(sync.body).keys()], [href], 'and is in the sync since')
  t.not(tokenOf(sync.body), token)
  token = tokenOf(sync.body)

  // The attendee answers through the JSON API: PARTSTAT follows, the sync reports it.
  await kid.json('POST', `/api/v1/events/${event.id}/rsvp`, { status: 'tentative' })
  t.match(attendeeLine((await kid.dav('GET', href)).body, kid.email), 'PARTSTAT=TENTATIVE')
  t.same([...hrefs((await kid.dav('REPORT', INVITATIONS, SYNC(token), { depth: '1' })).body).keys()], [href], 'the answer is a change')
  token = tokenOf((await kid.dav('REPORT', INVITATIONS, SYNC(token), { depth: '1' })).body)

  // Dropped from the attendees: gone from the Invitations (404, reported removed).
  await b.json('PATCH', `/api/v1/events/${event.id}`, { attendees: [{ email: 'friend@elsewhere.test' }] })
  t.equal((await kid.dav('GET', href)).status, 404)
  t.same(
    [...hrefs((await kid.dav('REPORT', INVITATIONS, SYNC(token), { depth: '1' })).body).entries()],
    [[href, 404]],
    'sync reports it gone',
  )
  t.equal(
    (await kid.dav('PROPFIND', INVITATIONS, PROPFIND('d:getetag'), { depth: '0' })).status,
    207,
    'an emptied Invitations still answers',
  )
})

t.test('changing PARTSTAT answers the invitation; anything else is refused, nothing stored', async (t) => {
  const { b, kid, event, href } = await setup(t)
  const got = await kid.dav('GET', href)
  const etag = got.headers.etag as string
  const put = (body: string, headers: Record<string, string> = {}) =>
    kid.dav('PUT', href, body, { 'content-type': 'text/calendar', ...headers })

  const stale = await put(answered(got.body, kid.email, 'ACCEPTED'), { 'if-match': '"stale"' })
  t.equal(stale.status, 412, 'If-Match honoured')

  const summary = await put(answered(got.body, kid.email, 'ACCEPTED').replace('SUMMARY:Family dinner', 'SUMMARY:Mine now'))
  t.equal(summary.status, 403, 'SUMMARY changed: refused')
  t.match(summary.body, '<c:allowed-attendee-scheduling-object-change')
  const moved = await put(got.body.replace('DTSTART:20261201T180000Z', 'DTSTART:20261201T170000Z'))
  t.equal(moved.status, 403, 'DTSTART changed: refused')
  const other = await put(answered(got.body, 'friend@elsewhere.test', 'ACCEPTED'))
  t.equal(other.status, 403, 'another attendee’s PARTSTAT: refused')
  const back = await b.json('GET', `/api/v1/events/${event.id}`)
  t.equal(back.body.data.title, 'Family dinner', 'nothing stored')
  t.match(back.body.data.attendees, [{ status: 'pending' }, { status: 'pending' }])

  const created = await kid.dav('PUT', `${INVITATIONS}new.ics`, got.body.replace(event.id, 'another-uid'), {
    'content-type': 'text/calendar',
  })
  t.equal(created.status, 403, 'no new object')
  t.match(created.body, '<d:need-privileges>')

  const accepted = await put(answered(got.body, kid.email, 'ACCEPTED'), { 'if-match': etag })
  t.equal(accepted.status, 204, 'their own PARTSTAT: stored')
  t.not(accepted.headers.etag, etag, 'with the new ETag')
  const organizer = await b.json('GET', `/api/v1/events/${event.id}`)
  t.match(organizer.body.data.attendees, [{ email: kid.email, status: 'accepted' }, { status: 'pending' }], 'the organizer sees the answer')
  t.match(attendeeLine((await kid.dav('GET', href)).body, kid.email), 'PARTSTAT=ACCEPTED')

  const reset = await put(answered((await kid.dav('GET', href)).body, kid.email, 'NEEDS-ACTION'))
  t.equal(reset.status, 403, 'NEEDS-ACTION is no answer')

  const collection = await kid.dav('DELETE', INVITATIONS)
  t.equal(collection.status, 403, 'the collection is not deleted')
  t.equal((await kid.dav('MKCALENDAR', INVITATIONS)).status, 403, 'nor made')

  const deleted = await kid.dav('DELETE', href)
  t.equal(deleted.status, 204, 'deleting an invitation declines it')
  const declined = await b.json('GET', `/api/v1/events/${event.id}`)
  t.match(declined.body.data.attendees, [{ email: kid.email, status: 'declined' }])
  t.equal(declined.body.data.deleted_at, null, 'the organizer’s event stays')
  t.match(attendeeLine((await kid.dav('GET', href)).body, kid.email), 'PARTSTAT=DECLINED', 'and reads DECLINED')
})

t.test('a member not invited, and the organizer: no Invitations object', async (t) => {
  const { b, event, href } = await setup(t)
  const stranger = await davMember(b)
  t.equal((await stranger.dav('GET', href)).status, 404, 'another member: not found')
  t.equal((await stranger.dav('DELETE', href)).status, 404)
  const put = await stranger.dav('PUT', href, 'BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\n', { 'content-type': 'text/calendar' })
  t.equal(put.status, 403, 'a PUT is no way in')
  t.equal((await b.dav('GET', href)).status, 404, 'the organizer reads it in their own calendar, not here')
  t.equal((await b.dav('GET', `/dav/calendars/Family/${event.id}.ics`)).status, 200)
})

t.test('a series with an overridden occurrence: each PARTSTAT answers its own', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const attendees = `ATTENDEE;CN=Kid;PARTSTAT=NEEDS-ACTION:mailto:${kid.email}\r\n`
  const series =
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n' +
    `BEGIN:VEVENT\r\nUID:lessons\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260105T160000Z\r\nDTEND:20260105T170000Z\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\nSUMMARY:Piano\r\n${attendees}END:VEVENT\r\n` +
    `BEGIN:VEVENT\r\nUID:lessons\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID:20260112T160000Z\r\nDTSTART:20260112T170000Z\r\nDTEND:20260112T180000Z\r\nSUMMARY:Piano (late)\r\n${attendees}END:VEVENT\r\n` +
    'END:VCALENDAR\r\n'
  t.equal((await b.dav('PUT', '/dav/calendars/default/lessons.ics', series, { 'content-type': 'text/calendar' })).status, 201)
  const events = (await b.json('GET', '/api/v1/events?search=Piano')).body.data as Array<{ id: string; recurrence_id: string | null }>
  const main = events.find((e) => !e.recurrence_id) as { id: string }
  const override = events.find((e) => e.recurrence_id) as { id: string }
  const href = `${INVITATIONS}${main.id}.ics`

  const got = await kid.dav('GET', href)
  t.equal(got.status, 200)
  t.equal((got.body.match(/BEGIN:VEVENT/g) ?? []).length, 2, 'the series with its override')
  // Only the override's PARTSTAT: the second ATTENDEE line of the text.
  const unfolded = got.body.replace(/\r\n[ \t]/g, '')
  const at = unfolded.lastIndexOf('PARTSTAT=NEEDS-ACTION')
  const lateOnly = `${unfolded.slice(0, at)}PARTSTAT=DECLINED${unfolded.slice(at + 'PARTSTAT=NEEDS-ACTION'.length)}`
  const put = await kid.dav('PUT', href, lateOnly, { 'content-type': 'text/calendar', 'if-match': got.headers.etag as string })
  t.equal(put.status, 204)
  t.match((await b.json('GET', `/api/v1/events/${override.id}`)).body.data.attendees, [{ status: 'declined' }], 'the late lesson declined')
  t.match((await b.json('GET', `/api/v1/events/${main.id}`)).body.data.attendees, [{ status: 'pending' }], 'the series still pending')
})

t.test('an attendee’s PUT naming another ORGANIZER, or none, is refused with the precondition; nothing stored', async (t) => {
  const { b, kid, event, href } = await setup(t)
  const got = await kid.dav('GET', href)
  const text = got.body.replace(/\r\n[ \t]/g, '')
  const organizer = text.split('\r\n').find((l) => l.startsWith('ORGANIZER')) as string
  const put = (body: string) => kid.dav('PUT', href, body, { 'content-type': 'text/calendar', 'if-match': got.headers.etag as string })

  for (const [label, body] of [
    ['another organizer, with an answer', answered(text, kid.email, 'ACCEPTED').replace(organizer, `ORGANIZER;CN=Kid:mailto:${kid.email}`)],
    ['another organizer alone', text.replace(organizer, 'ORGANIZER:mailto:someone@elsewhere.test')],
    ['the organizer left out', answered(text, kid.email, 'ACCEPTED').replace(`${organizer}\r\n`, '')],
  ] as const) {
    const res = await put(body)
    t.equal(res.status, 403, `${label}: 403`)
    t.match(res.body, '<c:allowed-attendee-scheduling-object-change', `${label}: RFC 6638's precondition`)
  }
  const stored = (await b.json('GET', `/api/v1/events/${event.id}`)).body.data
  t.match(stored.attendees, [{ email: kid.email, status: 'pending' }], 'no answer stored')
  t.equal((await kid.dav('GET', href)).headers.etag, got.headers.etag, 'the invitation is as it was')

  const sameOrganizer = await put(answered(text, kid.email, 'ACCEPTED').replace(organizer, organizer.replace('mailto:', 'MAILTO:')))
  t.equal(sameOrganizer.status, 204, 'the same organizer in another case still answers')
})
