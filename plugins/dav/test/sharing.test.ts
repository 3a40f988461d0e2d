import t from 'tap'
import { davBench, davMember, GROUP_VCARD, hrefs, PROPFIND, SYNC, tokenOf, VCARD, VEVENT } from './dav-app.js'

/**
 * Collections shared between members, over CalDAV and CardDAV: where they appear in the sharee's
 * homes, what their privileges say, a read share refusing writes (nothing stored), a write share
 * writing the owner's records, unsharing removing them at once, and every href of an unshared
 * collection answering 404 whatever the method.
 */
const PRIVILEGES = PROPFIND('d:current-user-privilege-set')
const privilegesOf = (body: string) =>
  [
    ...(/<d:current-user-privilege-set>([\s\S]*?)<\/d:current-user-privilege-set>/.exec(body)?.[1] ?? '').matchAll(
      /<d:privilege><(\w+:[\w-]+)\/><\/d:privilege>/g,
    ),
  ]
    .map((m) => m[1])
    .sort()
const ics = (uid: string, summary: string) => VEVENT(uid, summary, '20261205T180000Z')

t.test('a shared calendar: in the sharee’s home, read-only, then writable, then gone', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const dinner = (
    await b.json('POST', '/api/v1/events', { title: 'Family dinner', start_at: '2026-12-01T18:00:00Z', calendar_name: 'Family' })
  ).body.data
  const ownerId = dinner.owner_id as string
  await b.json('POST', '/api/v1/events', { title: 'Budget review', start_at: '2026-12-02T09:00:00Z', calendar_name: 'Work' })
  await b.dav(
    'PROPPATCH',
    '/dav/calendars/Family/',
    '<d:propertyupdate xmlns:d="DAV:" xmlns:a="http://apple.com/ns/ical/"><d:set><d:prop><d:displayname>Our family</d:displayname><a:calendar-color>#FF8800</a:calendar-color></d:prop></d:set></d:propertyupdate>',
  )
  const share = (await b.json('POST', '/api/v1/shares', { kind: 'calendar', name: 'Family', with: kid.userId, access: 'read' })).body.data
  const href = `/dav/calendars/shared-${ownerId}-Family/`

  const home = await kid.dav(
    'PROPFIND',
    '/dav/calendars/',
    PROPFIND('d:displayname', 'd:owner', 'd:current-user-privilege-set', 'a:calendar-color xmlns:a="http://apple.com/ns/ical/"'),
    { depth: '1' },
  )
  t.same(
    [...hrefs(home.body).keys()],
    ['/dav/calendars/', '/dav/calendars/birthdays/', '/dav/calendars/default/', href, '/dav/calendars/tasks-default/'],
    'the shared calendar is in the home, at its own href',
  )
  t.match(home.body, '<d:displayname>Our family (Owner)</d:displayname>', 'its name says whose it is')
  t.match(home.body, `<d:owner><d:href>/dav/principals/${ownerId}/</d:href></d:owner>`)
  t.match(home.body, 'calendar-color>#FF8800</', 'the owner’s colour')

  const read = await kid.dav('PROPFIND', href, PRIVILEGES, { depth: '0' })
  t.same(privilegesOf(read.body), ['c:read-free-busy', 'd:read', 'd:read-current-user-privilege-set'], 'a read share: read only')
  const ownerPrincipal = await kid.dav(
    'PROPFIND',
    `/dav/principals/${ownerId}/`,
    PROPFIND('d:displayname', 'c:calendar-user-address-set'),
    { depth: '0' },
  )
  t.equal(ownerPrincipal.status, 207, 'the owner’s principal answers the sharee')
  t.match(ownerPrincipal.body, '<d:displayname>Owner</d:displayname>')
  t.match(ownerPrincipal.body, `mailto:${b.email}`)

  // Reading: Depth 1, GET, calendar-query, multiget, sync-collection: the owner's events of that calendar only.
  const listing = await kid.dav('PROPFIND', href, PROPFIND('d:getetag'), { depth: '1' })
  const objectHref = `${href}${dinner.id}.ics`
  t.same([...hrefs(listing.body).keys()], [href, objectHref], 'Depth 1 lists the owner’s event, nothing of another calendar')
  const got = await kid.dav('GET', objectHref)
  t.equal(got.status, 200)
  t.match(got.body, 'SUMMARY:Family dinner')
  const query = await kid.dav(
    'REPORT',
    href,
    '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="20261201T000000Z" end="20261203T000000Z"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>',
    { depth: '1' },
  )
  t.same([...hrefs(query.body).keys()], [objectHref], 'calendar-query')
  const multiget = await kid.dav(
    'REPORT',
    href,
    `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><d:href>${objectHref}</d:href><d:href>/dav/calendars/Family/${dinner.id}.ics</d:href></c:calendar-multiget>`,
  )
  t.equal(hrefs(multiget.body).get(objectHref), 200, 'multiget')
  t.equal(
    hrefs(multiget.body).get(`/dav/calendars/Family/${dinner.id}.ics`),
    404,
    'the same event under the sharee’s own name for the calendar: not theirs',
  )
  const first = await kid.dav('REPORT', href, SYNC())
  t.same([...hrefs(first.body).keys()], [objectHref], 'sync-collection lists it')
  const ctag = async () => /<cs:getctag>([^<]*)</.exec((await kid.dav('PROPFIND', href, PROPFIND('cs:getctag'), { depth: '0' })).body)?.[1]
  const ctagBefore = await ctag()

  // A read share refuses writes with need-privileges, and stores nothing.
  const refused = await kid.dav('PUT', `${href}new.ics`, ics('kid-new', 'Sleepover'), { 'content-type': 'text/calendar' })
  t.equal(refused.status, 403, 'PUT into a read share')
  t.match(
    refused.body,
    `<d:need-privileges><d:resource><d:href>${href}</d:href><d:privilege><d:bind/></d:privilege></d:resource></d:need-privileges>`,
  )
  const overwrite = await kid.dav('PUT', objectHref, ics(`${dinner.id}@hearth`, 'Changed'), { 'content-type': 'text/calendar' })
  t.equal(overwrite.status, 403, 'replacing an event of a read share')
  t.match(overwrite.body, '<d:write-content/>')
  t.equal((await kid.dav('DELETE', objectHref)).status, 403, 'DELETE in a read share')
  t.equal((await kid.dav('DELETE', href)).status, 403, 'deleting the shared calendar itself')
  const patch = await kid.dav(
    'PROPPATCH',
    href,
    '<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>Mine now</d:displayname></d:prop></d:set></d:propertyupdate>',
  )
  t.match(patch.body, 'HTTP/1.1 403', 'renaming it')
  const events = (await b.json('GET', '/api/v1/events?calendar_name=Family')).body.data
  t.same(
    events.map((e: { title: string }) => e.title),
    ['Family dinner'],
    'nothing stored, nothing changed',
  )
  t.match(home.body, '<d:displayname>Our family (Owner)</d:displayname>')

  // The owner edits: the sharee's ETag, ctag and sync token move.
  const etagBefore = got.headers.etag
  await b.json('PATCH', `/api/v1/events/${dinner.id}`, { location: 'Grandma’s' })
  t.not(await ctag(), ctagBefore, 'the ctag changes when the owner edits')
  t.not((await kid.dav('GET', objectHref)).headers.etag, etagBefore, 'and the ETag')
  const delta = await kid.dav('REPORT', href, SYNC(tokenOf(first.body)))
  t.same([...hrefs(delta.body).entries()], [[objectHref, 200]], 'sync-collection reports the change')

  // Write access: the sharee adds, changes and deletes the owner's events.
  await b.json('PATCH', `/api/v1/shares/${share.id}`, { access: 'write' })
  const write = await kid.dav('PROPFIND', href, PRIVILEGES, { depth: '0' })
  t.same(
    privilegesOf(write.body),
    ['c:read-free-busy', 'd:bind', 'd:read', 'd:read-current-user-privilege-set', 'd:unbind', 'd:write-content'],
    'a write share: read and write its objects',
  )
  const made = await kid.dav('PUT', `${href}sleepover.ics`, ics('kid-sleepover', 'Sleepover'), {
    'content-type': 'text/calendar',
    'if-none-match': '*',
  })
  t.equal(made.status, 201, 'PUT into a write share')
  const sleepover = (await b.json('GET', '/api/v1/events?calendar_name=Family&search=Sleepover')).body.data[0]
  t.match(sleepover, { title: 'Sleepover', owner_id: ownerId, calendar_name: 'Family' }, 'stored as the owner’s event')
  t.equal(
    (await b.dav('GET', '/dav/calendars/Family/sleepover.ics')).status,
    200,
    'the owner reads it in their own calendar, under the name the sharee gave',
  )
  const own = await kid.json('GET', '/api/v1/events?owner=me')
  t.same(own.body.data, [], 'nothing in the sharee’s own calendars')
  const changed = await kid.dav('PUT', `${href}sleepover.ics`, ics('kid-sleepover', 'Sleepover at Sam’s'), {
    'content-type': 'text/calendar',
    'if-match': String(made.headers.etag),
  })
  t.equal(changed.status, 204, 'a write share replaces')
  t.equal((await b.json('GET', `/api/v1/events/${sleepover.id}`)).body.data.title, 'Sleepover at Sam’s')
  t.equal((await kid.dav('DELETE', `${href}sleepover.ics`)).status, 204, 'and deletes')
  t.equal((await b.json('GET', `/api/v1/events/${sleepover.id}`)).status, 404, 'into the owner’s trash')

  // Unsharing: gone from the home, and every request on it is 404 (the sync too).
  const token = tokenOf((await kid.dav('REPORT', href, SYNC())).body)
  await b.json('DELETE', `/api/v1/shares/${share.id}`)
  const after = await kid.dav('PROPFIND', '/dav/calendars/', PROPFIND('d:displayname'), { depth: '1' })
  t.notOk(hrefs(after.body).has(href), 'gone from the home at once')
  t.equal((await kid.dav('REPORT', href, SYNC(token))).status, 404, 'sync-collection: a collection that is gone')
  t.equal((await kid.dav('PROPFIND', href, PROPFIND('d:getetag'), { depth: '1' })).status, 404)
  t.equal((await kid.dav('GET', objectHref)).status, 404)
  t.equal(
    (await kid.dav('PROPFIND', `/dav/principals/${ownerId}/`, PROPFIND('d:displayname'), { depth: '0' })).status,
    404,
    'and the owner’s principal',
  )
})

t.test('an unshared collection answers 404 to every method, under every href of the scheme', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const stranger = await davMember(b)
  const dinner = (await b.json('POST', '/api/v1/events', { title: 'Dinner', start_at: '2026-12-01T18:00:00Z', calendar_name: 'Family' }))
    .body.data
  const ownerId = dinner.owner_id as string
  const work = (await b.json('POST', '/api/v1/events', { title: 'Work', start_at: '2026-12-01T09:00:00Z', calendar_name: 'Work' })).body
    .data
  const task = (await b.json('POST', '/api/v1/tasks', { title: 'Taxes', list_name: 'Chores' })).body.data
  const card = (await b.json('POST', '/api/v1/contacts', { display_name: 'Grandma' })).body.data
  await b.json('POST', '/api/v1/shares', { kind: 'calendar', name: 'Family', with: kid.userId, access: 'write' })
  const guesses = [
    `/dav/calendars/shared-${ownerId}-Work/`,
    `/dav/calendars/shared-${ownerId}-Work/${work.id}.ics`,
    `/dav/calendars/shared-${ownerId}-default/`,
    `/dav/calendars/shared-${ownerId}-tasks-Chores/`,
    `/dav/calendars/shared-${ownerId}-tasks-Chores/${task.id}.ics`,
    `/dav/addressbooks/shared-${ownerId}-contacts/`,
    `/dav/addressbooks/shared-${ownerId}-contacts/${card.id}.vcf`,
    `/dav/calendars/shared-${kid.userId}-default/`,
  ]
  const strangerGuesses = [
    `/dav/calendars/shared-${ownerId}-Family/`,
    `/dav/calendars/shared-${ownerId}-Family/${dinner.id}.ics`,
    `/dav/principals/${ownerId}/`,
  ]
  const methods: Array<[string, string | undefined, Record<string, string>]> = [
    ['PROPFIND', PROPFIND('d:displayname', 'd:getetag'), { depth: '1' }],
    ['GET', undefined, {}],
    ['REPORT', SYNC(), {}],
    ['PUT', ics('guess', 'Guess'), { 'content-type': 'text/calendar' }],
    ['DELETE', undefined, {}],
    [
      'PROPPATCH',
      '<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>x</d:displayname></d:prop></d:set></d:propertyupdate>',
      {},
    ],
    ['MKCALENDAR', undefined, {}],
  ]
  for (const [who, member, urls] of [
    ['the sharee of another calendar', kid, guesses],
    ['a member nothing is shared with', stranger, [...guesses, ...strangerGuesses]],
  ] as const)
    for (const url of urls)
      for (const [method, body, headers] of methods) {
        const res = await member.dav(method, url, body, headers)
        t.equal(res.status, 404, `${who}: ${method} ${url}`)
      }
  // In the calendar shared with them, an event of another calendar named by its id is not there either.
  for (const method of ['GET', 'DELETE', 'PROPFIND'])
    t.equal(
      (await kid.dav(method, `/dav/calendars/shared-${ownerId}-Family/${work.id}.ics`)).status,
      404,
      `${method} another calendar’s event through the shared one`,
    )
  t.equal((await b.json('GET', `/api/v1/events/${work.id}`)).body.data.title, 'Work', 'nothing changed')
  t.equal((await b.json('GET', `/api/v1/tasks/${task.id}`)).status, 200)
  t.equal((await b.json('GET', `/api/v1/contacts/${card.id}`)).status, 200)
})

t.test('a shared address book and task list: beside the sharee’s own, never mixed into them', async (t) => {
  const b = await davBench(t)
  const kid = await davMember(b)
  const grandma = (await b.json('POST', '/api/v1/contacts', { display_name: 'Grandma' })).body.data
  const ownerId = grandma.owner_id as string
  const taxes = (await b.json('POST', '/api/v1/tasks', { title: 'Taxes', list_name: 'Chores' })).body.data
  await b.json('POST', '/api/v1/events', { title: 'Owner default', start_at: '2026-12-01T09:00:00Z' })
  const mine = (await kid.json('POST', '/api/v1/contacts', { display_name: 'My friend' })).body.data
  await b.json('POST', '/api/v1/shares', { kind: 'addressbook', with: kid.userId, access: 'read' })
  await b.json('POST', '/api/v1/shares', { kind: 'tasklist', name: 'Chores', with: kid.userId, access: 'write' })
  await b.json('POST', '/api/v1/shares', { kind: 'calendar', name: 'default', with: kid.userId, access: 'read' })
  const book = `/dav/addressbooks/shared-${ownerId}-contacts/`
  const list = `/dav/calendars/shared-${ownerId}-tasks-Chores/`

  const books = await kid.dav('PROPFIND', '/dav/addressbooks/', PROPFIND('d:displayname', 'd:resourcetype'), { depth: '1' })
  t.same([...hrefs(books.body).keys()], ['/dav/addressbooks/', '/dav/addressbooks/contacts/', book])
  t.match(books.body, '<d:displayname>Contacts (Owner)</d:displayname>')
  const ownBook = await kid.dav('PROPFIND', '/dav/addressbooks/contacts/', PROPFIND('d:getetag'), { depth: '1' })
  t.same(
    [...hrefs(ownBook.body).keys()],
    ['/dav/addressbooks/contacts/', `/dav/addressbooks/contacts/${mine.id}.vcf`],
    'the sharee’s own address book holds their contacts only',
  )
  t.equal(
    (await kid.dav('GET', `/dav/addressbooks/contacts/${grandma.id}.vcf`)).status,
    404,
    'the owner’s contact is not in it by id either',
  )
  const shared = await kid.dav('PROPFIND', book, PROPFIND('d:getetag'), { depth: '1' })
  t.same([...hrefs(shared.body).keys()], [book, `${book}${grandma.id}.vcf`], 'the shared one holds the owner’s')
  const query = await kid.dav(
    'REPORT',
    book,
    '<card:addressbook-query xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:prop><card:address-data/></d:prop></card:addressbook-query>',
    { depth: '1' },
  )
  t.match(query.body, 'FN:Grandma', 'addressbook-query')
  t.notMatch(query.body, 'My friend')
  const card = await kid.dav('PUT', `${book}new.vcf`, VCARD('kid-card', 'Kid Friend'), { 'content-type': 'text/vcard' })
  t.equal(card.status, 403, 'a read share of the address book refuses a new card')
  t.equal((await b.json('GET', '/api/v1/contacts?search=Kid')).body.data.length, 0, 'nothing stored')
  t.equal((await kid.dav('GET', `/dav/calendars/default/${taxes.id}.ics`)).status, 404)

  const calendarHome = await kid.dav('PROPFIND', '/dav/calendars/', PROPFIND('d:displayname', 'c:supported-calendar-component-set'), {
    depth: '1',
  })
  t.ok(hrefs(calendarHome.body).has(list), 'the shared task list is in the calendar home')
  t.match(calendarHome.body, '<d:displayname>Chores (Owner)</d:displayname>')
  const ownDefault = await kid.dav('PROPFIND', '/dav/calendars/default/', PROPFIND('d:getetag'), { depth: '1' })
  t.same(
    [...hrefs(ownDefault.body).keys()],
    ['/dav/calendars/default/'],
    'the owner’s “default”, shared, does not fill the sharee’s own “default”',
  )
  const todo =
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTODO\r\nUID:kid-todo\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:Mow the lawn\r\nEND:VTODO\r\nEND:VCALENDAR\r\n'
  t.equal(
    (await kid.dav('PUT', `${list}mow.ics`, todo, { 'content-type': 'text/calendar' })).status,
    201,
    'a write share of a task list takes a task',
  )
  const mow = (await b.json('GET', '/api/v1/tasks?list_name=Chores&search=Mow')).body.data[0]
  t.match(mow, { title: 'Mow the lawn', owner_id: ownerId, list_name: 'Chores' })
})

t.test(
  'a group card in a shared address book: the owner’s group, read by everyone it is shared with; a read share refuses it',
  async (t) => {
    const b = await davBench(t)
    const kid = await davMember(b)
    const robin = await davMember(b)
    const VCF = { 'content-type': 'text/vcard' }
    t.equal((await b.dav('PUT', '/dav/addressbooks/contacts/grandma.vcf', VCARD('grandma-uid', 'Grandma'), VCF)).status, 201)
    const doctor = (await b.json('POST', '/api/v1/contacts', { display_name: 'Doctor' })).body.data
    const friend = (await kid.json('POST', '/api/v1/contacts', { display_name: 'Kid’s friend' })).body.data
    await b.json('POST', '/api/v1/shares', { kind: 'addressbook', with: kid.userId, access: 'write' })
    await b.json('POST', '/api/v1/shares', { kind: 'addressbook', with: robin.userId, access: 'read' })
    const book = `/dav/addressbooks/shared-${doctor.owner_id}-contacts/`
    const card = GROUP_VCARD('Family', ['grandma-uid', doctor.id, friend.id])

    const before = tokenOf((await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC())).body)
    const put = await kid.dav('PUT', `${book}family.vcf`, card, { ...VCF, 'if-none-match': '*' })
    t.equal(put.status, 201, 'a write share takes a group card')
    const synced = await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC(before))
    t.equal(hrefs(synced.body).get('/dav/addressbooks/contacts/family.vcf'), 200, 'the owner’s next sync brings it')
    const grouped = (await b.json('GET', '/api/v1/contacts?group=Family&owner=me')).body.data as Array<{ display_name: string }>
    t.same(grouped.map((c) => c.display_name).sort(), ['Doctor', 'Grandma'], 'the owner’s contacts it names are in the owner’s group')
    t.same((await kid.json('GET', `/api/v1/contacts/${friend.id}`)).body.data.groups, [], 'the sharee’s own contact is not')

    const owners = await b.dav('GET', '/dav/addressbooks/contacts/family.vcf')
    t.equal(owners.status, 200, 'the owner reads it in their own address book')
    t.equal(owners.body, card, 'as it was written')
    t.equal(owners.headers.etag, put.headers.etag)
    for (const [who, member] of [
      ['the writer', kid],
      ['a read sharee', robin],
    ] as const) {
      const got = await member.dav('GET', `${book}family.vcf`)
      t.equal(got.status, 200, `${who} reads it in the shared address book`)
      t.match(got.body, 'X-ADDRESSBOOKSERVER-KIND:group')
      const listing = await member.dav('PROPFIND', book, PROPFIND('d:getetag'), { depth: '1' })
      t.equal(hrefs(listing.body).get(`${book}family.vcf`), 200, `${who} finds it listed`)
    }
    t.equal((await kid.dav('GET', '/dav/addressbooks/contacts/family.vcf')).status, 404, 'not in the writer’s own address book')

    const refused = await robin.dav('PUT', `${book}friends.vcf`, GROUP_VCARD('Friends', [doctor.id]), VCF)
    t.equal(refused.status, 403, 'a read share refuses a group card')
    t.match(refused.body, '<d:need-privileges>')
    const changed = await robin.dav('PUT', `${book}family.vcf`, GROUP_VCARD('Family', []), VCF)
    t.equal(changed.status, 403, 'and a change of one')
    t.equal((await b.json('GET', '/api/v1/contacts?group=Family&owner=me')).body.meta.total, 2, 'nothing stored')
    t.equal((await b.json('GET', '/api/v1/contacts?group=Friends')).body.meta.total, 0)

    const fewer = await kid.dav('PUT', `${book}family.vcf`, GROUP_VCARD('Family', ['grandma-uid']), {
      ...VCF,
      'if-match': put.headers.etag as string,
    })
    t.equal(fewer.status, 204, 'the writer changes it')
    t.same((await b.json('GET', `/api/v1/contacts/${doctor.id}`)).body.data.groups, [], 'a contact no longer named leaves the group')
    t.equal((await kid.dav('DELETE', `${book}family.vcf`)).status, 204, 'and deletes it')
    t.equal((await b.json('GET', '/api/v1/contacts?group=Family')).body.meta.total, 0, 'nobody is in the group any more')
    t.equal((await b.dav('GET', '/dav/addressbooks/contacts/family.vcf')).status, 404)
  },
)
