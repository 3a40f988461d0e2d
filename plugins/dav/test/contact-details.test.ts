import { readFileSync } from 'node:fs'
import t from 'tap'
import { sourcePath } from '../../../test/paths.js'
import { addUser, apiKey, auth } from '../../../test/helper.js'
import { basicHeader, davBench, hrefs, PROPFIND, SYNC, tokenOf, VCARD } from './dav-app.js'

/**
 * Contacts' new details over CardDAV (Apple's group cards ⇄ `groups`) and the read-only birthdays
 * calendar over CalDAV, in-process through the real HTTP stack.
 */
const fixture = (name: string) => readFileSync(sourcePath(import.meta.url, `fixtures/${name}`), 'utf8')
const BOOK = '/dav/addressbooks/contacts/'
const BIRTHDAYS = '/dav/calendars/birthdays/'
const CARD = { 'content-type': 'text/vcard; charset=utf-8' }
const ICS = { 'content-type': 'text/calendar; charset=utf-8' }

const QUERY = (start: string, end: string) =>
  `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"><c:time-range start="${start}" end="${end}"/></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`

t.test("an iPhone's group card sets groups on its members, and a group set through the JSON API is a group card", async (t) => {
  const b = await davBench(t)
  // The members first, as the phone uploads them (the second one only after the group).
  t.equal((await b.dav('PUT', `${BOOK}johnny.vcf`, fixture('ios-contact.vcf'), CARD)).status, 201)
  const group = fixture('ios-group.vcf')
  const put = await b.dav('PUT', `${BOOK}D59C9F0C-group.vcf`, group, { ...CARD, 'if-none-match': '*' })
  t.equal(put.status, 201)
  const johnny = (await b.json('GET', '/api/v1/contacts?search=appleseed')).body.data[0]
  t.same(johnny.groups, ['Book club'], 'the member named by its UID is in the group')
  t.match(johnny, { birthday: '1980-04-01' }, 'BDAY became the birthday')
  const later = VCARD('3C1D2E4F-5A6B-4C7D-8E9F-0A1B2C3D4E5F', 'Ann Later')
  t.equal((await b.dav('PUT', `${BOOK}ann.vcf`, later, CARD)).status, 201)
  const ann = (await b.json('GET', '/api/v1/contacts?search=later')).body.data[0]
  t.same(ann.groups, ['Book club'], 'a member the group named before it existed joins when its card arrives')
  t.same((await b.json('GET', '/api/v1/contacts?group=Book%20club')).body.meta.total, 2)

  const got = await b.dav('GET', `${BOOK}D59C9F0C-group.vcf`)
  t.equal(got.body, group, 'the group card comes back as the phone wrote it')
  t.not(got.headers.etag, put.headers.etag, 'its tag moved when the late member joined (the phone reads it again)')

  // An edit on the phone of a member's card (no CATEGORIES: iOS never writes them) keeps the group.
  const edited = fixture('ios-contact.vcf').replace('TITLE:Senior Engineer', 'TITLE:Distinguished Engineer')
  t.equal((await b.dav('PUT', `${BOOK}johnny.vcf`, edited, CARD)).status, 204)
  t.same((await b.json('GET', `/api/v1/contacts/${johnny.id}`)).body.data.groups, ['Book club'])

  // The phone takes Ann out of the group and renames it.
  const smaller = group
    .replace('X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:3C1D2E4F-5A6B-4C7D-8E9F-0A1B2C3D4E5F\r\n', '')
    .replace(/Book club/g, 'Readers')
  t.equal((await b.dav('PUT', `${BOOK}D59C9F0C-group.vcf`, smaller, { ...CARD, 'if-match': got.headers.etag as string })).status, 204)
  t.same((await b.json('GET', `/api/v1/contacts/${johnny.id}`)).body.data.groups, ['Readers'])
  t.same((await b.json('GET', `/api/v1/contacts/${ann.id}`)).body.data.groups, [])

  // The JSON API puts Ann in it again and in a new group: the phone sees both as group cards.
  await b.json('PATCH', `/api/v1/contacts/${ann.id}`, { groups: ['Readers', 'Neighbours'] })
  const listing = await b.dav(
    'REPORT',
    BOOK,
    '<card:addressbook-query xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/><card:address-data/></d:prop></card:addressbook-query>',
    { depth: '1' },
  )
  t.equal(listing.status, 207)
  const cards = [...listing.body.matchAll(/BEGIN:VCARD[\s\S]*?END:VCARD/g)].map((m) => m[0].replace(/&#13;/g, '\r').replace(/\r?\n /g, ''))
  const groupCards = cards.filter((c) => c.includes('X-ADDRESSBOOKSERVER-KIND:group'))
  t.equal(groupCards.length, 2)
  const readers = groupCards.find((c) => c.includes('FN:Readers')) as string
  t.match(readers, 'UID:D59C9F0C-27AA-47E3-96E7-43717BBC1D7E', "the phone's own UID")
  t.match(readers, 'X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:7A9E2B6C-0E6C-4E3D-8C4B-1F7A9E2B6C11')
  t.match(readers, 'X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:3C1D2E4F-5A6B-4C7D-8E9F-0A1B2C3D4E5F')
  const neighbours = groupCards.find((c) => c.includes('FN:Neighbours')) as string
  t.match(neighbours, 'X-ADDRESSBOOKSERVER-MEMBER:urn:uuid:3C1D2E4F-5A6B-4C7D-8E9F-0A1B2C3D4E5F')
  const neighboursHref = [...hrefs(listing.body).keys()].find((h) => h.includes('group-')) as string
  t.ok(neighboursHref, 'a group made through the JSON API has an object of its own')
  t.notOk(
    cards.some((c) => c.includes('FN:Ann Later') && c.includes('X-ADDRESSBOOKSERVER-KIND')),
    'contacts stay contacts',
  )

  // Deleting a group card on the phone takes the group from its members.
  t.equal((await b.dav('DELETE', neighboursHref)).status, 204)
  t.same((await b.json('GET', `/api/v1/contacts/${ann.id}`)).body.data.groups, ['Readers'])
  const sync = await b.dav('REPORT', BOOK, SYNC(), { depth: '1' })
  t.notOk(
    [...hrefs(sync.body).keys()].some((h) => h === neighboursHref),
    'gone from the address book',
  )
  t.equal(
    (await b.dav('PUT', `${BOOK}bad-group.vcf`, 'BEGIN:VCARD\r\nVERSION:3.0\r\nX-ADDRESSBOOKSERVER-KIND:group\r\nEND:VCARD\r\n', CARD))
      .status,
    400,
    'a group card without a name is refused',
  )
})

t.test('the birthdays calendar over CalDAV: listed, read-only, following the contacts', async (t) => {
  const b = await davBench(t)
  const ada = (await b.json('POST', '/api/v1/contacts', { display_name: 'Ada', birthday: '1815-12-10', anniversary: '--07-08' })).body.data
  await b.json('POST', '/api/v1/contacts', { display_name: 'Leap', birthday: '--02-29' })

  const home = await b.dav('PROPFIND', '/dav/calendars/', PROPFIND('d:displayname', 'd:current-user-privilege-set', 'd:resourcetype'), {
    depth: '1',
  })
  t.equal(home.status, 207)
  const block = /<d:response><d:href>\/dav\/calendars\/birthdays\/<\/d:href>([\s\S]*?)<\/d:response>/.exec(home.body)?.[1] ?? ''
  t.match(block, '<d:displayname>Birthdays</d:displayname>', 'listed in the calendar home')
  t.match(block, '<c:calendar/>')
  t.match(block, '<d:privilege><d:read/></d:privilege>')
  t.notMatch(block, '<d:write/>', 'read-only: no write privilege')

  const query = await b.dav('REPORT', BIRTHDAYS, QUERY('20270101T000000Z', '20280101T000000Z'), { depth: '1' })
  t.equal(query.status, 207)
  const names = [...hrefs(query.body).keys()].map((h) => h.slice(BIRTHDAYS.length)).sort()
  t.equal(names.length, 3)
  t.ok(names.includes(`${ada.id}-birthday.ics`) && names.includes(`${ada.id}-anniversary.ics`))
  const text = (await b.dav('GET', `${BIRTHDAYS}${ada.id}-birthday.ics`)).body
  t.match(text, "SUMMARY:Ada's birthday")
  t.match(text, 'DTSTART;VALUE=DATE:18151210')
  t.match(text, 'RRULE:FREQ=YEARLY')
  const none = await b.dav('REPORT', BIRTHDAYS, QUERY('20270301T000000Z', '20270601T000000Z'), { depth: '1' })
  t.equal(hrefs(none.body).size, 0, 'a range without a birthday holds none')

  const sync = await b.dav('REPORT', BIRTHDAYS, SYNC(), { depth: '1' })
  const token = tokenOf(sync.body)
  t.equal(hrefs(sync.body).size, 3)
  // PUT and DELETE are refused; nothing changes.
  const event =
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//EN\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:20270101\r\nSUMMARY:Party\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n'
  t.equal((await b.dav('PUT', `${BIRTHDAYS}party.ics`, event, ICS)).status, 403)
  t.equal((await b.dav('PUT', `${BIRTHDAYS}${ada.id}-birthday.ics`, event, ICS)).status, 403)
  t.equal((await b.dav('DELETE', `${BIRTHDAYS}${ada.id}-birthday.ics`)).status, 403)
  t.equal((await b.dav('DELETE', BIRTHDAYS)).status, 403)
  t.equal((await b.dav('MKCALENDAR', BIRTHDAYS)).status, 405, 'it is there already')
  t.equal((await b.json('GET', `/api/v1/contacts/${ada.id}`)).body.data.birthday, '1815-12-10')

  // An edit of the contact shows on the next sync; a removed date goes.
  await b.json('PATCH', `/api/v1/contacts/${ada.id}`, { birthday: '1815-12-11', anniversary: null })
  const next = await b.dav('REPORT', BIRTHDAYS, SYNC(token), { depth: '1' })
  t.equal(next.status, 207)
  const changed = hrefs(next.body)
  t.equal(changed.get(`${BIRTHDAYS}${ada.id}-birthday.ics`), 200)
  t.equal(changed.get(`${BIRTHDAYS}${ada.id}-anniversary.ics`), 404)
  t.match((await b.dav('GET', `${BIRTHDAYS}${ada.id}-birthday.ics`)).body, 'DTSTART;VALUE=DATE:18151211')
})

t.test('birthdays over CalDAV follow the address books shared with the member', async (t) => {
  const b = await davBench(t)
  const kid = await addUser(b.app, b.token, { email: 'kid@example.test' })
  const kidKey = await apiKey(b.app, b.token, { scope: 'dav', user_id: kid.userId })
  const asKid = async (method: string, url: string, body?: string) => {
    const res = await b.app.inject({
      method: method as 'GET',
      url,
      headers: { ...basicHeader('kid@example.test', kidKey), 'content-type': 'application/xml', depth: '1' },
      ...(body ? { payload: body } : {}),
    })
    return { status: res.statusCode, body: res.body }
  }
  const grandma = (await b.json('POST', '/api/v1/contacts', { display_name: 'Grandma', birthday: '1950-05-03' })).body.data
  const before = await asKid('REPORT', BIRTHDAYS, SYNC())
  t.equal(hrefs(before.body).size, 0, 'not shared: none of the owner’s birthdays')
  const token = tokenOf(before.body)
  const share = await b.app.inject({
    method: 'POST',
    url: '/api/v1/shares',
    headers: auth(b.token),
    payload: { kind: 'addressbook', with: kid.userId, access: 'read' },
  })
  t.equal(share.statusCode, 201)
  const after = await asKid('REPORT', BIRTHDAYS, SYNC(token))
  t.equal(hrefs(after.body).get(`${BIRTHDAYS}${grandma.id}-birthday.ics`), 200, 'shared: reported on the next sync')
  t.match((await asKid('GET', `${BIRTHDAYS}${grandma.id}-birthday.ics`)).body, "SUMMARY:Grandma's birthday")
  await b.app.inject({ method: 'DELETE', url: `/api/v1/shares/${share.json().data.id}`, headers: auth(b.token) })
  const gone = await asKid('REPORT', BIRTHDAYS, SYNC(tokenOf(after.body)))
  t.equal(hrefs(gone.body).get(`${BIRTHDAYS}${grandma.id}-birthday.ics`), 404, 'unshared: gone on the next sync')
  t.equal((await asKid('GET', `${BIRTHDAYS}${grandma.id}-birthday.ics`)).status, 404)
})
