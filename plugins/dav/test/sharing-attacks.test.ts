import t from 'tap'
import { davBench, davMember, GROUP_VCARD, hrefs, SYNC, tokenOf, VCARD, VEVENT, VTODO } from './dav-app.js'

/**
 * A household member attacking what other members share with them over CalDAV: hrefs crafted
 * towards collections not shared, writes whose UIDs name the owner's other records, free-busy
 * of a shared calendar, and the Invitations collection. Each answer tells nothing of what is not
 * shared, and changes nothing that is not the member's to change.
 */
const FREE_BUSY = (start: string, end: string) =>
  `<?xml version="1.0"?><c:free-busy-query xmlns:c="urn:ietf:params:xml:ns:caldav"><c:time-range start="${start}" end="${end}"/></c:free-busy-query>`
const summaryTodo = (uid: string, summary: string, lines = '') =>
  VTODO(
    uid,
    `SUMMARY:${summary}
${lines}`,
  )
const ICS = { 'content-type': 'text/calendar' }

t.test('free-busy-query on a shared calendar answers its owner’s busy times, not the sharee’s own calendar of that name', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const dinner = (
    await b.json('POST', '/api/v1/events', {
      title: 'Family dinner',
      start_at: '2026-12-01T18:00:00Z',
      end_at: '2026-12-01T19:00:00Z',
      calendar_name: 'Family',
    })
  ).body.data
  await kid.json('POST', '/api/v1/events', {
    title: 'Kid’s own',
    start_at: '2026-12-03T09:00:00Z',
    end_at: '2026-12-03T10:00:00Z',
    calendar_name: 'Family',
  })
  await b.json('POST', '/api/v1/shares', { kind: 'calendar', name: 'Family', with: kid.userId, access: 'read' })
  const res = await kid.dav('REPORT', `/dav/calendars/shared-${dinner.owner_id}-Family/`, FREE_BUSY('20261201T000000Z', '20261205T000000Z'))
  t.equal(res.status, 200)
  t.match(res.body, 'FREEBUSY;FBTYPE=BUSY:20261201T180000Z/20261201T190000Z', 'the owner’s event makes the shared calendar busy')
  t.notMatch(res.body, '20261203T090000Z', 'the sharee’s own calendar called Family is not what the shared one answers')
})

t.test('a task’s RELATED-TO naming a task of the owner’s unshared list: answered as an unknown parent (no oracle)', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const chore = (await b.json('POST', '/api/v1/tasks', { title: 'Taxes', list_name: 'Chores' })).body.data
  await b.json('POST', '/api/v1/tasks', { title: 'Seed', list_name: 'Private' })
  const secret = await b.dav('PUT', '/dav/calendars/tasks-Private/secret.ics', summaryTodo('secret-parent-uid', 'Surprise gift'), ICS)
  t.equal(secret.status, 201, 'the owner’s private task, with a UID of its client’s')
  await b.json('POST', '/api/v1/shares', { kind: 'tasklist', name: 'Chores', with: kid.userId, access: 'write' })
  const list = `/dav/calendars/shared-${chore.owner_id}-tasks-Chores/`

  const unknown = await kid.dav('PUT', `${list}a.ics`, summaryTodo('kid-a', 'Sub A', 'RELATED-TO;RELTYPE=PARENT:no-such-uid\r\n'), ICS)
  const hidden = await kid.dav('PUT', `${list}b.ics`, summaryTodo('kid-b', 'Sub B', 'RELATED-TO;RELTYPE=PARENT:secret-parent-uid\r\n'), ICS)
  t.equal(unknown.status, 201, 'a parent UID nobody has: the task is stored, its RELATED-TO kept')
  t.equal(hidden.status, unknown.status, 'a parent UID of the owner’s unshared list answers exactly as an unknown one')
  const got = await kid.dav('GET', `${list}b.ics`)
  t.match(got.body, 'RELATED-TO;RELTYPE=PARENT:secret-parent-uid', 'written back as the client wrote it')
  const stored = (await b.json('GET', '/api/v1/tasks?list_name=Chores')).body.data as Array<{ title: string; parent_id: string | null }>
  t.equal(stored.find((x) => x.title === 'Sub B')?.parent_id, null, 'not linked under the owner’s private task')
})

t.test('crafted hrefs and UIDs reach nothing of the owner’s unshared calendars', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const dinner = (await b.json('POST', '/api/v1/events', { title: 'Dinner', start_at: '2026-12-01T18:00:00Z', calendar_name: 'Family' }))
    .body.data
  const ownerId = dinner.owner_id as string
  const work = await b.dav('PUT', '/dav/calendars/default/work.ics', VEVENT('work-uid', 'Salary talk', '20261202T090000Z'), ICS)
  t.equal(work.status, 201)
  const share = (await b.json('POST', '/api/v1/shares', { kind: 'calendar', name: 'Family', with: kid.userId, access: 'write' })).body.data
  const family = `/dav/calendars/shared-${ownerId}-Family/`

  for (const url of [
    `/dav/calendars/shared-${ownerId}-Family/..%2F..%2Fcalendars%2Fdefault%2Fwork.ics`,
    `/dav/calendars/shared-${ownerId}-Family%2F..%2Fdefault/work.ics`,
    `/dav/calendars/shared-${ownerId}-default/work.ics`,
    `/dav/calendars/shared-${ownerId}-Family/../shared-${ownerId}-default/work.ics`,
  ]) {
    const res = await kid.dav('GET', url)
    t.not(res.status, 200, `${url}: not served`)
    t.notMatch(res.body, 'Salary talk')
  }

  // The owner's UID in another, unshared calendar: no conflict named, nothing of it changed.
  const put = await kid.dav('PUT', `${family}kid.ics`, VEVENT('work-uid', 'Overwritten', '20261203T090000Z'), ICS)
  t.equal(put.status, 201, 'stored as a new event of the shared calendar')
  t.notMatch(put.body, 'work.ics', 'the unshared object is not named')
  const still = await b.dav('GET', '/dav/calendars/default/work.ics')
  t.match(still.body, 'SUMMARY:Salary talk', 'the owner’s other event is unchanged')

  const multiget = await kid.dav(
    'REPORT',
    family,
    `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><d:href>/dav/calendars/shared-${ownerId}-default/work.ics</d:href><d:href>${family}work.ics</d:href><d:href>${family}..%2Fshared-${ownerId}-default%2Fwork.ics</d:href></c:calendar-multiget>`,
  )
  t.notMatch(multiget.body, 'Salary talk', 'multiget serves no object of an unshared calendar')
  t.same([...hrefs(multiget.body).values()], [404, 404, 404])

  // A read share: no method writes into it or changes it.
  await b.json('PATCH', `/api/v1/shares/${share.id}`, { access: 'read' })
  const setName =
    '<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>Hijacked</d:displayname></d:prop></d:set></d:propertyupdate>'
  const patched = await kid.dav('PROPPATCH', family, setName)
  t.notMatch(patched.body, 'HTTP/1.1 200', 'PROPPATCH sets nothing')
  for (const method of ['MOVE', 'COPY', 'ACL', 'LOCK', 'POST']) {
    const res = await kid.dav(method, `${family}kid.ics`, '', { destination: `${family}moved.ics` })
    t.ok([403, 404, 405].includes(res.status), `${method}: ${res.status}`)
  }
  t.equal((await kid.dav('PUT', `${family}new.ics`, VEVENT('new-uid', 'Sneaked in'), ICS)).status, 403, 'PUT refused')
  const made = await kid.dav('MKCALENDAR', `/dav/calendars/shared-${ownerId}-Sneaky/`)
  t.ok([403, 404].includes(made.status), `no calendar made in the owner’s name: ${made.status}`)
  const names = (await b.json('GET', '/api/v1/events?limit=100')).body.data.map((e: { title: string }) => e.title).sort()
  t.same(names, ['Dinner', 'Overwritten', 'Salary talk'], 'the owner’s events: only the one written while the share allowed it')
  const props = await b.dav(
    'PROPFIND',
    '/dav/calendars/Family/',
    '<d:propfind xmlns:d="DAV:"><d:prop><d:displayname/></d:prop></d:propfind>',
    {
      depth: '0',
    },
  )
  t.notMatch(props.body, 'Hijacked')
})

t.test('sync-collection on a shared calendar from a token older than the share lists nothing of the calendar’s past', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const dinner = (await b.json('POST', '/api/v1/events', { title: 'Dinner', start_at: '2026-12-01T18:00:00Z', calendar_name: 'Family' }))
    .body.data
  const put = await b.dav(
    'PUT',
    '/dav/calendars/Family/surprise-party-for-kid.ics',
    VEVENT('surprise', 'Surprise', '20261204T180000Z'),
    ICS,
  )
  t.equal(put.status, 201)
  t.equal((await b.dav('DELETE', '/dav/calendars/Family/surprise-party-for-kid.ics')).status, 204)
  await b.json('POST', '/api/v1/shares', { kind: 'calendar', name: 'Family', with: kid.userId, access: 'read' })
  const family = `/dav/calendars/shared-${dinner.owner_id}-Family/`
  for (const token of ['http://hearth.invalid/ns/sync/1', 'http://hearth.invalid/ns/sync/1/zzzz']) {
    const res = await kid.dav('REPORT', family, SYNC(token))
    t.notMatch(res.body, 'surprise-party', `${token}: the name of an object gone before the share is not told`)
  }
  const first = await kid.dav('REPORT', family, SYNC())
  t.notMatch(first.body, 'surprise-party')
  const lunch = (await b.json('POST', '/api/v1/events', { title: 'Lunch', start_at: '2026-12-02T12:00:00Z', calendar_name: 'Family' })).body
    .data
  const next = await kid.dav('REPORT', family, SYNC(tokenOf(first.body)))
  t.equal(next.status, 207, 'a token given since the share goes on syncing')
  t.same([...hrefs(next.body).keys()], [`${family}${lunch.id}.ics`], 'with the changes after it')
})

t.test('an attendee taken off an event answers it no more, over JSON or CalDAV', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const event = (
    await b.json('POST', '/api/v1/events', {
      title: 'Dinner',
      start_at: '2026-12-01T18:00:00Z',
      calendar_name: 'Family',
      attendees: [{ email: kid.email, name: 'Kid' }],
    })
  ).body.data
  const href = `/dav/calendars/invitations/${event.id}.ics`
  const text = (await kid.dav('GET', href)).body
  t.match(text, 'SUMMARY:Dinner')
  await b.json('PATCH', `/api/v1/events/${event.id}`, { attendees: [] })
  const rsvp = await kid.json('POST', `/api/v1/events/${event.id}/rsvp`, { status: 'accepted' })
  t.equal(rsvp.status, 404, 'no longer readable: not found')
  const put = await kid.dav('PUT', href, text.replace(/PARTSTAT=[A-Z-]+/, 'PARTSTAT=ACCEPTED'), ICS)
  t.equal(put.status, 403, 'the CalDAV answer is refused')
  const after = (await b.json('GET', `/api/v1/events/${event.id}`)).body.data
  t.same(after.attendees, [], 'nobody added back')
  t.equal((await kid.dav('DELETE', href)).status, 404, 'nothing to decline')
})

t.test('an invitation’s PUT: ORGANIZER, a malformed or oversized body change nothing of the organizer’s event', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const event = (
    await b.json('POST', '/api/v1/events', {
      title: 'Dinner',
      start_at: '2026-12-01T18:00:00Z',
      calendar_name: 'Family',
      attendees: [
        { email: kid.email, name: 'Kid' },
        { email: 'friend@elsewhere.test', name: 'Friend' },
      ],
    })
  ).body.data
  const href = `/dav/calendars/invitations/${event.id}.ics`
  const text = (await kid.dav('GET', href)).body.replace(/\r\n[ \t]/g, '')
  const organizer = /^ORGANIZER[^\r]*/m.exec(text)?.[0] ?? ''
  t.ok(organizer, 'the invitation names its organizer')
  const mine = text.split('\r\n').find((l) => l.startsWith('ATTENDEE') && l.toLowerCase().includes(kid.email.toLowerCase())) ?? ''
  const accepted = text.replace(mine, mine.replace(/PARTSTAT=[A-Z-]+/, 'PARTSTAT=ACCEPTED'))
  const hijack = accepted.replace(organizer, `ORGANIZER;CN=Kid:mailto:${kid.email}`)
  const put = await kid.dav('PUT', href, hijack, ICS)
  t.not(put.status, 500)
  const after = (await b.json('GET', `/api/v1/events/${event.id}`)).body.data
  t.equal(after.owner_id, event.owner_id, 'still the organizer’s')
  const seen = (await b.dav('GET', `/dav/calendars/Family/${event.id}.ics`)).body.replace(/\r\n[ \t]/g, '')
  t.notMatch(seen, `ORGANIZER;CN=Kid`, 'the organizer’s own copy names no other organizer')
  t.same(
    after.attendees.map((a: { email: string; status?: string }) => [a.email, a.status]).sort(),
    [
      ['friend@elsewhere.test', event.attendees[1].status],
      [kid.email, put.status === 204 ? 'accepted' : 'pending'],
    ].sort(),
    'only the kid’s own answer may have changed',
  )

  for (const body of ['BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n', 'not a calendar', `${accepted}${'X-PAD:'.padEnd(70, 'x')}\r\n`.repeat(1)]) {
    const res = await kid.dav('PUT', href, body, ICS)
    t.ok(res.status < 500, `${body.slice(0, 20)}: ${res.status}, no 500`)
  }
  const huge = await kid.dav('PUT', href, accepted.replace('END:VEVENT', `DESCRIPTION:${'x'.repeat(12 * 1024 * 1024)}\r\nEND:VEVENT`), ICS)
  t.equal(huge.status, 413, 'a body past the object limit is refused unread')
})

t.test('a group card groups only the contacts of its own address book; a read share refuses it', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const VCF = { 'content-type': 'text/vcard' }
  t.equal((await b.dav('PUT', '/dav/addressbooks/contacts/grandma.vcf', VCARD('grandma-uid', 'Grandma'), VCF)).status, 201)
  const plain = (await b.json('POST', '/api/v1/contacts', { display_name: 'Doctor' })).body.data
  const buddy = (await kid.json('POST', '/api/v1/contacts', { display_name: 'Buddy' })).body.data
  const own = await kid.dav('PUT', '/dav/addressbooks/contacts/fam.vcf', GROUP_VCARD('Stolen', ['grandma-uid', plain.id]), VCF)
  t.equal(own.status, 201, 'the kid’s own group card is stored')
  const share = (await b.json('POST', '/api/v1/shares', { kind: 'addressbook', with: kid.userId, access: 'read' })).body.data
  const shared = `/dav/addressbooks/shared-${plain.owner_id}-contacts/`
  const sneaky = GROUP_VCARD('Sneaky', ['grandma-uid', plain.id, buddy.id])
  const read = await kid.dav('PUT', `${shared}fam.vcf`, sneaky, VCF)
  t.equal(read.status, 403, 'a read share refuses a group card')
  const groupsOf = async (member: typeof kid | typeof b) =>
    Object.fromEntries(
      (
        (await member.json('GET', '/api/v1/contacts?owner=me&limit=100')).body.data as Array<{ display_name: string; groups?: string[] }>
      ).map((c) => [c.display_name, c.groups ?? []]),
    )
  t.same(await groupsOf(b), { Grandma: [], Doctor: [] }, 'the kid’s own card and a refused one group none of the owner’s contacts')

  await b.json('PATCH', `/api/v1/shares/${share.id}`, { access: 'write' })
  const written = await kid.dav('PUT', `${shared}fam.vcf`, sneaky, VCF)
  t.equal(written.status, 201, 'a write share takes it')
  t.same(await groupsOf(b), { Grandma: ['Sneaky'], Doctor: ['Sneaky'] }, 'it groups the owner’s contacts, in the owner’s book only')
  t.same(
    await groupsOf(kid),
    { Buddy: [] },
    'never the kid’s own contact it names (the name stays pending, as for contacts not yet synced)',
  )
})

t.test('free/busy of a member who shares nothing: intervals only; their calendars answer no free-busy-query', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const secret = (
    await b.json('POST', '/api/v1/events', {
      title: 'Secret title',
      location: 'Secret place',
      start_at: '2026-12-01T18:00:00Z',
      end_at: '2026-12-01T19:00:00Z',
      calendar_name: 'Work',
    })
  ).body.data
  const res = await kid.json('GET', `/api/v1/freebusy?users=${secret.owner_id}&from=2026-12-01&to=2026-12-02`)
  t.equal(res.status, 200)
  t.same(res.body.data, [{ user_id: secret.owner_id, busy: [{ start: '2026-12-01T18:00:00.000Z', end: '2026-12-01T19:00:00.000Z' }] }])
  t.notMatch(JSON.stringify(res.body), /Secret/)
  const report = await kid.dav(
    'REPORT',
    `/dav/calendars/shared-${secret.owner_id}-Work/`,
    FREE_BUSY('20261201T000000Z', '20261202T000000Z'),
  )
  t.equal(report.status, 404, 'free-busy-query on a calendar not shared: not found')
  t.notMatch(report.body, /Secret|20261201T18/)
})
