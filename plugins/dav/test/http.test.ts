import t from 'tap'
import { apiKey, auth } from '../../../test/helper.js'
import { basicHeader, davBench, hrefs, PROPFIND, SYNC, tokenOf, VCARD, VEVENT } from './dav-app.js'

t.test('discovery: well-known redirects, the root names the principal, the principal its homes', async (t) => {
  const b = await davBench(t)
  for (const url of ['/.well-known/caldav', '/.well-known/carddav']) {
    const res = await b.app.inject({ method: 'PROPFIND', url })
    t.equal(res.statusCode, 301, url)
    t.equal(res.headers.location, '/dav/')
  }
  const options = await b.app.inject({ method: 'OPTIONS', url: '/dav/' })
  t.equal(options.statusCode, 200)
  t.match(options.headers.dav, /calendar-access/)
  t.match(options.headers.dav, /addressbook/)

  const root = await b.dav('PROPFIND', '/dav/', PROPFIND('d:current-user-principal'), { depth: '0' })
  t.equal(root.status, 207)
  t.match(root.body, '<d:current-user-principal><d:href>/dav/principal/</d:href></d:current-user-principal>')

  const principal = await b.dav(
    'PROPFIND',
    '/dav/principal/',
    PROPFIND('c:calendar-home-set', 'card:addressbook-home-set', 'd:resourcetype', 'd:foo'),
    {
      depth: '0',
    },
  )
  t.match(principal.body, '<c:calendar-home-set><d:href>/dav/calendars/</d:href></c:calendar-home-set>')
  t.match(principal.body, '<card:addressbook-home-set><d:href>/dav/addressbooks/</d:href></card:addressbook-home-set>')
  t.match(principal.body, /<d:prop><d:foo\/><\/d:prop><d:status>HTTP\/1.1 404 Not Found/, 'unknown properties are reported missing')

  const home = await b.dav(
    'PROPFIND',
    '/dav/calendars/',
    PROPFIND('d:resourcetype', 'c:supported-calendar-component-set', 'cs:getctag', 'd:sync-token'),
    {
      depth: '1',
    },
  )
  t.same(
    [...hrefs(home.body).keys()],
    ['/dav/calendars/', '/dav/calendars/birthdays/', '/dav/calendars/default/', '/dav/calendars/tasks-default/'],
    'the calendar and the task list of the default list',
  )
  t.match(home.body, '<c:supported-calendar-component-set><c:comp name="VEVENT"/></c:supported-calendar-component-set>')
  t.match(home.body, '<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>')
  t.match(home.body, /<cs:getctag>http:\/\/hearth.invalid\/ns\/sync\/\d+<\/cs:getctag>/)

  const books = await b.dav('PROPFIND', '/dav/addressbooks/', PROPFIND('d:resourcetype'), { depth: '1' })
  t.same([...hrefs(books.body).keys()], ['/dav/addressbooks/', '/dav/addressbooks/contacts/'])
  t.match(books.body, '<d:resourcetype><d:collection/><card:addressbook/></d:resourcetype>')

  const allprop = await b.dav('PROPFIND', '/dav/principal/', undefined, { depth: '0' })
  t.equal(allprop.status, 207, 'an empty PROPFIND is allprop')
  t.equal((await b.dav('PROPFIND', '/dav/nowhere/', PROPFIND('d:getetag'))).status, 404)
})

t.test('sign-in: HTTP Basic with the email and a dav key; anything else is 401 with a Basic challenge', async (t) => {
  const b = await davBench(t)
  const refused = async (headers: Record<string, string>, why: string) => {
    const res = await b.app.inject({ method: 'PROPFIND', url: '/dav/', headers: { ...headers, depth: '0' } })
    t.equal(res.statusCode, 401, why)
    t.equal(res.headers['www-authenticate'], 'Basic realm="Hearth"', why)
  }
  await refused({}, 'no credentials')
  await refused(basicHeader(b.email, 'clk_00000000000000000000000000000000'), 'wrong key')
  await refused(basicHeader('someone@example.test', b.key), 'another email')
  await refused({ authorization: `Bearer ${b.token}` }, 'a session token')
  const agent = await apiKey(b.app, b.token, { scope: 'agent' })
  await refused(basicHeader(b.email, agent), 'a key of another scope')

  // A dav key reaches DAV only.
  const json = await b.app.inject({ method: 'GET', url: '/api/v1/contacts', headers: auth(b.key) })
  t.equal(json.statusCode, 403)
  t.equal(json.json().error.code, 'INSUFFICIENT_SCOPE')
  for (const url of ['/api/v1/events', '/api/v1/admin/api-keys', '/api/v1/notes']) {
    t.equal((await b.app.inject({ method: 'GET', url, headers: auth(b.key) })).statusCode, 403, url)
  }

  // Revoked: refused at once.
  const list = await b.json('GET', '/api/v1/admin/api-keys?scope=dav')
  const id = list.body.data[0].id
  t.equal((await b.json('DELETE', `/api/v1/admin/api-keys/${id}`)).status, 200)
  await refused(b.basic, 'a revoked key')
})

t.test('failed sign-ins are throttled like logins', async (t) => {
  const b = await davBench(t, { HEARTH_LOGIN_FAIL_LIMIT: '3' })
  const wrong = basicHeader(b.email, 'clk_11111111111111111111111111111111')
  const statuses: number[] = []
  for (let i = 0; i < 4; i++) statuses.push((await b.app.inject({ method: 'PROPFIND', url: '/dav/', headers: wrong })).statusCode)
  t.same(statuses, [401, 401, 401, 429])
  const blocked = await b.app.inject({ method: 'PROPFIND', url: '/dav/', headers: b.basic })
  t.equal(blocked.statusCode, 429, 'the account is blocked for everyone while the budget is spent')
  t.ok(blocked.headers['retry-after'])
})

t.test('XML is parsed without entities: XXE and billion laughs are refused, malformed bodies are 400', async (t) => {
  const b = await davBench(t)
  const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&x;</d:displayname></d:prop></d:propfind>`
  const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><d:propfind xmlns:d="DAV:"><d:prop><d:x>&lol3;</d:x></d:prop></d:propfind>`
  for (const [body, why] of [
    [xxe, 'XXE'],
    [laughs, 'billion laughs'],
    ['<d:propfind xmlns:d="DAV:"><d:prop>', 'unclosed'],
    ['<d:other xmlns:d="DAV:"/>', 'wrong root'],
  ] as const) {
    const res = await b.dav('PROPFIND', '/dav/', body, { depth: '0' })
    t.equal(res.status, 400, why)
    t.notMatch(res.body, 'root:', why)
  }
  // Predefined entities and character references still decode (an href with &amp;).
  await b.dav('PUT', '/dav/addressbooks/contacts/a%26b.vcf', VCARD('amp-1', 'Amp'), { 'content-type': 'text/vcard' })
  const multiget = `<card:addressbook-multiget xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/></d:prop><d:href>/dav/addressbooks/contacts/a%26b.vcf</d:href></card:addressbook-multiget>`
  const res = await b.dav('REPORT', '/dav/addressbooks/contacts/', multiget)
  t.equal(hrefs(res.body).get('/dav/addressbooks/contacts/a%26b.vcf'), 200)
})

t.test('objects: PUT creates and replaces through the records service; ETags and preconditions', async (t) => {
  const b = await davBench(t)
  const url = '/dav/addressbooks/contacts/jane.vcf'
  const created = await b.dav('PUT', url, VCARD('jane-1', 'Jane Doe', 'EMAIL;TYPE=WORK:jane@example.test\r\n'), {
    'content-type': 'text/vcard',
    'if-none-match': '*',
  })
  t.equal(created.status, 201)
  const etag = created.headers.etag as string
  t.match(etag, /^".+"$/)
  const contacts = (await b.json('GET', '/api/v1/contacts')).body.data
  t.equal(contacts.length, 1)
  t.equal(contacts[0].display_name, 'Jane Doe')
  t.same(contacts[0].emails, [{ address: 'jane@example.test', label: 'work', primary: false }])
  t.equal(contacts[0].source, 'dav')

  t.equal((await b.dav('PUT', url, VCARD('jane-1', 'Jane'), { 'content-type': 'text/vcard', 'if-none-match': '*' })).status, 412)
  t.equal((await b.dav('PUT', url, VCARD('jane-1', 'Jane'), { 'content-type': 'text/vcard', 'if-match': '"stale"' })).status, 412)
  const replaced = await b.dav('PUT', url, VCARD('jane-1', 'Jane Smith'), { 'content-type': 'text/vcard', 'if-match': etag })
  t.equal(replaced.status, 204)
  t.not(replaced.headers.etag, etag)
  const after = (await b.json('GET', `/api/v1/contacts/${contacts[0].id}`)).body.data
  t.equal(after.display_name, 'Jane Smith')
  t.same(after.emails, [], 'a replacement clears what the new card leaves out')

  const got = await b.dav('GET', url)
  t.equal(got.status, 200)
  t.equal(got.headers.etag, replaced.headers.etag)
  t.match(got.headers['content-type'], 'text/vcard')
  t.match(got.body, 'UID:jane-1')

  t.equal((await b.dav('PUT', url, 'not a vcard', { 'content-type': 'text/vcard' })).status, 400)
  const twin = await b.dav('PUT', '/dav/addressbooks/contacts/twin.vcf', VCARD('jane-1', 'Jane Twin'), { 'content-type': 'text/vcard' })
  t.equal(twin.status, 409, 'a second object with the same UID (no-uid-conflict)')
  t.equal((await b.dav('PUT', '/dav/calendars/nope/x.ics', VEVENT('x', 'X'), { 'content-type': 'text/calendar' })).status, 409)
  const huge = VCARD('big', 'Big', `NOTE:${'x'.repeat(1100 * 1024)}\r\n`)
  t.equal((await b.dav('PUT', '/dav/addressbooks/contacts/big.vcf', huge, { 'content-type': 'text/vcard' })).status, 413)
  const todo = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:t\r\nSUMMARY:x\r\nEND:VTODO\r\nEND:VCALENDAR\r\n'
  t.equal((await b.dav('PUT', '/dav/calendars/default/t.ics', todo, { 'content-type': 'text/calendar' })).status, 422)

  // RFC 9110: If-None-Match compares weakly (W/"x" names the stored object too), If-Match strongly.
  const current = replaced.headers.etag as string
  t.equal((await b.dav('PUT', url, VCARD('jane-1', 'Jane'), { 'content-type': 'text/vcard', 'if-none-match': `W/${current}` })).status, 412)
  t.equal((await b.dav('PUT', url, VCARD('jane-1', 'Jane'), { 'content-type': 'text/vcard', 'if-match': `W/${current}` })).status, 412)
  t.equal(
    (await b.dav('PUT', url, VCARD('jane-1', 'Jane'), { 'content-type': 'text/vcard', 'if-none-match': `"other", ${current}` })).status,
    412,
  )
  t.equal((await b.dav('DELETE', url, undefined, { 'if-match': '"stale"' })).status, 412)
  t.equal((await b.dav('DELETE', url, undefined, { 'if-match': replaced.headers.etag as string })).status, 204)
  t.equal((await b.dav('GET', url)).status, 404)
  const trash = (await b.json('GET', '/api/v1/contacts?only_deleted=true')).body.data
  t.equal(trash.length, 1, 'DELETE soft-deletes, as the JSON API does')
})

t.test('sync-collection follows changes made on the JSON side, deletions and moves included', async (t) => {
  const b = await davBench(t)
  const book = '/dav/addressbooks/contacts/'
  const first = await b.dav('REPORT', book, SYNC())
  t.equal(first.status, 207)
  const t0 = tokenOf(first.body)
  t.ok(t0)

  const made = (await b.json('POST', '/api/v1/contacts', { display_name: 'Ann' })).body.data
  const href = `${book}${made.id}.vcf`
  let res = await b.dav('REPORT', book, SYNC(t0))
  t.same([...hrefs(res.body)], [[href, 200]], 'created on the JSON side')
  const t1 = tokenOf(res.body)
  t.not(t1, t0)
  t.equal((await b.dav('REPORT', book, SYNC(t1))).body.includes('<d:response>'), false, 'nothing new since')

  await b.json('PATCH', `/api/v1/contacts/${made.id}`, { job_title: 'Pilot' })
  res = await b.dav('REPORT', book, SYNC(t1))
  t.same([...hrefs(res.body)], [[href, 200]], 'changed')
  const t2 = tokenOf(res.body)
  t.match((await b.dav('GET', href)).body, 'TITLE:Pilot', 'the change shows at once')

  await b.json('DELETE', `/api/v1/contacts/${made.id}`)
  res = await b.dav('REPORT', book, SYNC(t2))
  t.same([...hrefs(res.body)], [[href, 404]], 'soft-deleted is deleted')
  const t3 = tokenOf(res.body)
  await b.json('POST', `/api/v1/contacts/${made.id}/restore`)
  res = await b.dav('REPORT', book, SYNC(t3))
  t.same([...hrefs(res.body)], [[href, 200]], 'restored')

  // An event moved to another calendar leaves the first and appears in the second.
  const ev = (await b.json('POST', '/api/v1/events', { title: 'Gym', start_at: '2026-03-02T18:00:00Z' })).body.data
  const cal = await b.dav('REPORT', '/dav/calendars/default/', SYNC())
  t.ok(hrefs(cal.body).has(`/dav/calendars/default/${ev.id}.ics`))
  const c0 = tokenOf(cal.body)
  await b.json('PATCH', `/api/v1/events/${ev.id}`, { calendar_name: 'sport' })
  res = await b.dav('REPORT', '/dav/calendars/default/', SYNC(c0))
  t.same([...hrefs(res.body)], [[`/dav/calendars/default/${ev.id}.ics`, 404]])
  res = await b.dav('REPORT', '/dav/calendars/sport/', SYNC())
  t.ok(hrefs(res.body).has(`/dav/calendars/sport/${ev.id}.ics`))

  t.equal((await b.dav('REPORT', book, SYNC('http://hearth.invalid/ns/sync/99999'))).status, 403, 'a token from the future')
  const bad = await b.dav('REPORT', book, SYNC('garbage'))
  t.equal(bad.status, 403)
  t.match(bad.body, '<d:valid-sync-token/>')
})

t.test('MKCALENDAR, calendar-query over recurrences, multiget, and the same events as the JSON API', async (t) => {
  const b = await davBench(t)
  const seen: string[] = []
  b.app.hearth.events.on('event.*', (e) => void seen.push(e.type))
  t.equal((await b.dav('MKCALENDAR', '/dav/calendars/work/')).status, 201)
  t.equal((await b.dav('MKCALENDAR', '/dav/calendars/work/')).status, 405)
  const list = await b.dav('PROPFIND', '/dav/calendars/', PROPFIND('d:displayname'), { depth: '1' })
  t.ok(hrefs(list.body).has('/dav/calendars/work/'), 'an empty calendar is listed')

  const weekly = VEVENT('w1', 'Weekly', '20260105T090000Z', 'RRULE:FREQ=WEEKLY;BYDAY=MO\r\n')
  t.equal((await b.dav('PUT', '/dav/calendars/work/weekly.ics', weekly, { 'content-type': 'text/calendar' })).status, 201)
  t.equal(
    (await b.dav('PUT', '/dav/calendars/work/once.ics', VEVENT('o1', 'Once', '20260304T120000Z'), { 'content-type': 'text/calendar' }))
      .status,
    201,
  )
  t.same(seen, ['event.created', 'event.created'])
  const events = (await b.json('GET', '/api/v1/events?calendar_name=work&limit=100')).body.data
  t.equal(events.filter((e: { recurrence_id: string | null }) => !e.recurrence_id).length, 2)

  const query = (start: string, end: string, comp = 'VEVENT') =>
    `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="${comp}"><c:time-range start="${start}" end="${end}"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`
  let res = await b.dav('REPORT', '/dav/calendars/work/', query('20261207T000000Z', '20261208T000000Z'))
  t.same([...hrefs(res.body).keys()], ['/dav/calendars/work/weekly.ics'], 'a Monday in December: the weekly series only')
  res = await b.dav('REPORT', '/dav/calendars/work/', query('20260304T000000Z', '20260305T000000Z'))
  t.same([...hrefs(res.body).keys()], ['/dav/calendars/work/once.ics'])
  res = await b.dav('REPORT', '/dav/calendars/work/', query('20260304T123000Z', '20260304T124000Z'))
  t.same([...hrefs(res.body).keys()], ['/dav/calendars/work/once.ics'], 'an event already under way overlaps')
  res = await b.dav('REPORT', '/dav/calendars/work/', query('20260101T000000Z', '20270101T000000Z', 'VTODO'))
  t.same([...hrefs(res.body).keys()], [], 'no tasks here')

  const multiget = `<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><d:href>/dav/calendars/work/weekly.ics</d:href><d:href>/dav/calendars/work/missing.ics</d:href></c:calendar-multiget>`
  res = await b.dav('REPORT', '/dav/calendars/work/', multiget)
  t.same(
    [...hrefs(res.body)],
    [
      ['/dav/calendars/work/weekly.ics', 200],
      ['/dav/calendars/work/missing.ics', 404],
    ],
  )
  t.match(res.body, 'RRULE:FREQ=WEEKLY;BYDAY=MO')
  t.equal((await b.dav('REPORT', '/dav/calendars/work/', '<d:expand-property xmlns:d="DAV:"/>')).status, 403)
})

t.test('users are isolated: one user never reaches another one objects', async (t) => {
  const b = await davBench(t)
  await b.dav('PUT', '/dav/addressbooks/contacts/mine.vcf', VCARD('m', 'Mine'), { 'content-type': 'text/vcard' })
  const invite = await b.json('POST', '/api/v1/admin/invitations', { email: 'other@example.test', role: 'user' })
  const reg = await b.app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    payload: { token: invite.body.data.token, password: 'another good password' },
  })
  const other = reg.json().data.user.id
  const key = await apiKey(b.app, b.token, { scope: 'dav', user_id: other })
  const as = basicHeader('other@example.test', key)
  const get = await b.app.inject({ method: 'GET', url: '/dav/addressbooks/contacts/mine.vcf', headers: as })
  t.equal(get.statusCode, 404)
  const list = await b.app.inject({ method: 'PROPFIND', url: '/dav/addressbooks/contacts/', headers: { ...as, depth: '1' } })
  t.same([...hrefs(list.body).keys()], ['/dav/addressbooks/contacts/'])
  const put = await b.app.inject({
    method: 'PUT',
    url: '/dav/addressbooks/contacts/mine.vcf',
    headers: { ...as, 'content-type': 'text/vcard' },
    payload: VCARD('m2', 'Theirs'),
  })
  t.equal(put.statusCode, 201, 'the same name in another user address book is another object')
  t.match((await b.dav('GET', '/dav/addressbooks/contacts/mine.vcf')).body, 'FN:Mine')
})

t.test('a series with overridden occurrences: replaced by PUT, and an override made on the JSON side shows in the object', async (t) => {
  const b = await davBench(t)
  const url = '/dav/calendars/default/series.ics'
  const series = (overrides: string) =>
    `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:s1\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260105T090000Z\r\nDTEND:20260105T100000Z\r\nRRULE:FREQ=WEEKLY;BYDAY=MO\r\nSUMMARY:Standup\r\nEND:VEVENT\r\n${overrides}END:VCALENDAR\r\n`
  const override = (rid: string, start: string, summary: string) =>
    `BEGIN:VEVENT\r\nUID:s1\r\nDTSTAMP:20260101T000000Z\r\nRECURRENCE-ID:${rid}\r\nDTSTART:${start}\r\nDURATION:PT1H\r\nSUMMARY:${summary}\r\nEND:VEVENT\r\n`
  const first = await b.dav('PUT', url, series(override('20260112T090000Z', '20260112T110000Z', 'Moved')), {
    'content-type': 'text/calendar',
  })
  t.equal(first.status, 201)
  const sync0 = tokenOf((await b.dav('REPORT', '/dav/calendars/default/', SYNC())).body)
  const overridesNow = async () =>
    (await b.json('GET', '/api/v1/events?limit=100')).body.data
      .filter((e: { recurrence_id: string | null }) => e.recurrence_id)
      .map((e: { title: string; occurrence_start: string }) => [e.title, e.occurrence_start])
  t.same(await overridesNow(), [['Moved', '2026-01-12T09:00:00.000Z']])

  // The client replaces the object: one override changed, one added.
  const next = series(
    override('20260112T090000Z', '20260112T120000Z', 'Moved again') + override('20260119T090000Z', '20260119T090000Z', 'Retro'),
  )
  const second = await b.dav('PUT', url, next, { 'content-type': 'text/calendar', 'if-match': first.headers.etag as string })
  t.equal(second.status, 204)
  t.same((await overridesNow()).sort(), [
    ['Moved again', '2026-01-12T09:00:00.000Z'],
    ['Retro', '2026-01-19T09:00:00.000Z'],
  ])
  t.equal((await b.dav('GET', url)).body, next, 'unchanged since: the object as written')
  const changes = await b.dav('REPORT', '/dav/calendars/default/', SYNC(sync0))
  t.same([...hrefs(changes.body)], [[url, 200]], 'one object changed, under its own name')

  // An occurrence changed through the JSON API becomes a RECURRENCE-ID in the object.
  const id = (await b.json('GET', '/api/v1/events?limit=100')).body.data.find((e: { recurrence_id: string | null }) => !e.recurrence_id).id
  const patched = await b.json('PATCH', `/api/v1/events/${id}?scope=this&occurrence_start=2026-01-26T09:00:00.000Z`, { title: 'Offsite' })
  t.equal(patched.status, 200)
  const got = (await b.dav('GET', url)).body
  t.match(got, /RECURRENCE-ID:20260126T090000Z\r\n[\s\S]*SUMMARY:Offsite/)
  t.match(got, 'UID:s1')
  t.equal((got.match(/BEGIN:VEVENT/g) ?? []).length, 4, 'the series and its three overrides')
  t.equal(
    got.match(/^UID:.*$/gm)?.every((l) => l === 'UID:s1'),
    true,
    'all under the client UID',
  )
})

t.test('addressbook-query filters by property text; addressbook-multiget answers the cards', async (t) => {
  const b = await davBench(t)
  const put = (name: string, card: string) => b.dav('PUT', `/dav/addressbooks/contacts/${name}.vcf`, card, { 'content-type': 'text/vcard' })
  await put('ann', VCARD('ann', 'Ann Archer', 'EMAIL:ann@work.example\r\n'))
  await put('bob', VCARD('bob', 'Bob Baker', 'EMAIL:bob@home.example\r\n'))
  const query = (filter: string, limit = '') =>
    `<card:addressbook-query xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/><card:address-data/></d:prop><card:filter${filter}</card:filter>${limit}</card:addressbook-query>`
  let res = await b.dav(
    'REPORT',
    '/dav/addressbooks/contacts/',
    query('><card:prop-filter name="EMAIL"><card:text-match match-type="contains">work.example</card:text-match></card:prop-filter>'),
  )
  t.same([...hrefs(res.body).keys()], ['/dav/addressbooks/contacts/ann.vcf'])
  t.match(res.body, 'FN:Ann Archer')
  res = await b.dav(
    'REPORT',
    '/dav/addressbooks/contacts/',
    query(
      ' test="allof"><card:prop-filter name="FN"><card:text-match match-type="starts-with">bob</card:text-match></card:prop-filter><card:prop-filter name="NICKNAME"><card:is-not-defined/></card:prop-filter>',
    ),
  )
  t.same([...hrefs(res.body).keys()], ['/dav/addressbooks/contacts/bob.vcf'])
  res = await b.dav('REPORT', '/dav/addressbooks/contacts/', query('>', '<card:limit><card:nresults>1</card:nresults></card:limit>'))
  t.equal(hrefs(res.body).size, 1, 'limit')
  const multiget = `<card:addressbook-multiget xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/><card:address-data/></d:prop><d:href>/dav/addressbooks/contacts/ann.vcf</d:href><d:href>/dav/addressbooks/contacts/bob.vcf</d:href><d:href>/dav/calendars/default/x.ics</d:href></card:addressbook-multiget>`
  res = await b.dav('REPORT', '/dav/addressbooks/contacts/', multiget)
  t.same(
    [...hrefs(res.body)],
    [
      ['/dav/addressbooks/contacts/ann.vcf', 200],
      ['/dav/addressbooks/contacts/bob.vcf', 200],
      ['/dav/calendars/default/x.ics', 404],
    ],
  )
  t.equal(
    (await b.dav('REPORT', '/dav/addressbooks/contacts/', '<c:calendar-query xmlns:c="urn:ietf:params:xml:ns:caldav"/>')).status,
    403,
    'a calendar report on the address book',
  )
})
