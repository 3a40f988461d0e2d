import t from 'tap'
import { addUser, apiKey } from '../../../test/helper.js'
import { basicHeader, davBench, hrefs, PROPFIND, SYNC, tokenOf, VEVENT } from './dav-app.js'

/** Collection properties clients set (RFC 4918 9.2 PROPPATCH, RFC 4791 5.3.1 MKCALENDAR): name, description, colour, order. */
const NSES = `xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:card="urn:ietf:params:xml:ns:carddav" xmlns:ical="http://apple.com/ns/ical/" xmlns:cs="http://calendarserver.org/ns/"`
const UPDATE = (...ops: string[]) => `<?xml version="1.0" encoding="utf-8"?><d:propertyupdate ${NSES}>${ops.join('')}</d:propertyupdate>`
const SET = (...props: string[]) => `<d:set><d:prop>${props.join('')}</d:prop></d:set>`
const REMOVE = (...props: string[]) => `<d:remove><d:prop>${props.map((p) => `<${p}/>`).join('')}</d:prop></d:remove>`
const MKCALENDAR = (...props: string[]) => `<?xml version="1.0" encoding="utf-8"?><c:mkcalendar ${NSES}>${SET(...props)}</c:mkcalendar>`
const CAL_PROPS = ['d:displayname', 'c:calendar-description', 'ical:calendar-color', 'ical:calendar-order']
const PROPFIND_ALL = (...props: string[]) =>
  PROPFIND(...props).replace('xmlns:d="DAV:"', 'xmlns:d="DAV:" xmlns:ical="http://apple.com/ns/ical/"')

/** The propstat status of each property named in a multistatus body: "d:displayname" → 200. */
function statuses(body: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const m of body.matchAll(/<d:propstat><d:prop>([\s\S]*?)<\/d:prop><d:status>HTTP\/1\.1 (\d{3})/g)) {
    for (const p of (m[1] as string).matchAll(/<([a-z]+:[a-z-]+)[ />]/g)) out.set(p[1] as string, Number(m[2]))
  }
  return out
}

/** The text of a property found (200) in a PROPFIND answer. */
const valueOf = (body: string, prop: string) => new RegExp(`<${prop}>([^<]*)</${prop}>`).exec(body)?.[1]

t.test('PROPPATCH sets, reads back and removes a calendar’s name, description, colour and order', async (t) => {
  const b = await davBench(t)
  const url = '/dav/calendars/default/'
  const before = await b.dav('PROPFIND', url, PROPFIND_ALL(...CAL_PROPS, 'cs:getctag', 'd:sync-token'), { depth: '0' })
  t.equal(valueOf(before.body, 'd:displayname'), 'default', 'the default name is the calendar_name')
  const s0 = statuses(before.body)
  for (const p of ['c:calendar-description', 'ical:calendar-color', 'ical:calendar-order']) t.equal(s0.get(p), 404, `${p} unset: missing`)

  const set = await b.dav(
    'PROPPATCH',
    url,
    UPDATE(
      SET(
        '<d:displayname>Family &amp; friends</d:displayname>',
        '<c:calendar-description>Birthdays, dinners</c:calendar-description>',
        '<ical:calendar-color symbolic-color="custom">#FF2968FF</ical:calendar-color>',
        '<ical:calendar-order>3</ical:calendar-order>',
      ),
    ),
  )
  t.equal(set.status, 207)
  t.same(
    [...statuses(set.body)],
    CAL_PROPS.map((p) => [p, 200]),
    'each property set: 200',
  )
  t.match(set.body, `<d:href>${url}</d:href>`)

  const after = await b.dav('PROPFIND', url, PROPFIND_ALL(...CAL_PROPS, 'cs:getctag', 'd:sync-token'), { depth: '0' })
  t.equal(valueOf(after.body, 'd:displayname'), 'Family &amp; friends')
  t.equal(valueOf(after.body, 'c:calendar-description'), 'Birthdays, dinners')
  t.equal(valueOf(after.body, 'ical:calendar-color'), '#FF2968FF')
  t.equal(valueOf(after.body, 'ical:calendar-order'), '3')
  t.equal(valueOf(after.body, 'cs:getctag'), valueOf(before.body, 'cs:getctag'), 'getctag follows the objects only')
  t.equal(valueOf(after.body, 'd:sync-token'), valueOf(before.body, 'd:sync-token'), 'so does the sync token')

  // The calendar home lists them too (what a client reads to show its calendars), and allprop includes them.
  const home = await b.dav('PROPFIND', '/dav/calendars/', PROPFIND_ALL('d:displayname', 'ical:calendar-color'), { depth: '1' })
  t.match(home.body, '<d:displayname>Family &amp; friends</d:displayname><ical:calendar-color>#FF2968FF</ical:calendar-color>')
  const allprop = await b.dav('PROPFIND', url, undefined, { depth: '0' })
  t.match(allprop.body, '<ical:calendar-color>#FF2968FF</ical:calendar-color>')
  t.match(allprop.body, '<c:calendar-description>Birthdays, dinners</c:calendar-description>')
  const propname = await b.dav('PROPFIND', url, `<d:propfind xmlns:d="DAV:"><d:propname/></d:propfind>`, { depth: '0' })
  t.match(propname.body, '<ical:calendar-order/>')

  // A sync after the change: nothing to fetch (collection properties are not objects).
  const sync = await b.dav('REPORT', url, SYNC(tokenOf((await b.dav('REPORT', url, SYNC())).body)))
  t.equal(hrefs(sync.body).size, 0)

  // Remove: back to the defaults; removing what is unset is no error.
  const removed = await b.dav('PROPPATCH', url, UPDATE(REMOVE('d:displayname', 'ical:calendar-color', 'ical:calendar-order')))
  t.same(
    [...statuses(removed.body)].map(([, s]) => s),
    [200, 200, 200],
  )
  const reset = await b.dav('PROPFIND', url, PROPFIND_ALL(...CAL_PROPS), { depth: '0' })
  t.equal(valueOf(reset.body, 'd:displayname'), 'default')
  t.equal(valueOf(reset.body, 'c:calendar-description'), 'Birthdays, dinners', 'what was not removed stays')
  t.equal(statuses(reset.body).get('ical:calendar-color'), 404)
  t.equal(statuses(reset.body).get('ical:calendar-order'), 404)
  t.equal((await b.dav('PROPPATCH', url, UPDATE(REMOVE('ical:calendar-color')))).status, 207)

  // In document order: set then removed in one request ends removed; removed then set ends set.
  await b.dav('PROPPATCH', url, UPDATE(SET('<ical:calendar-color>#00FF00</ical:calendar-color>'), REMOVE('ical:calendar-color')))
  t.equal(
    statuses((await b.dav('PROPFIND', url, PROPFIND_ALL('ical:calendar-color'), { depth: '0' })).body).get('ical:calendar-color'),
    404,
  )
  await b.dav('PROPPATCH', url, UPDATE(REMOVE('ical:calendar-color'), SET('<ical:calendar-color>#00ff00</ical:calendar-color>')))
  t.equal(
    valueOf((await b.dav('PROPFIND', url, PROPFIND_ALL('ical:calendar-color'), { depth: '0' })).body, 'ical:calendar-color'),
    '#00ff00',
  )
})

t.test('PROPPATCH on the address book: its name and description; calendar-only properties are refused', async (t) => {
  const b = await davBench(t)
  const url = '/dav/addressbooks/contacts/'
  t.equal(valueOf((await b.dav('PROPFIND', url, PROPFIND('d:displayname'), { depth: '0' })).body, 'd:displayname'), 'Contacts')
  const set = await b.dav(
    'PROPPATCH',
    url,
    UPDATE(
      SET('<d:displayname>Household</d:displayname>', '<card:addressbook-description>Everyone we know</card:addressbook-description>'),
    ),
  )
  t.same(
    [...statuses(set.body)],
    [
      ['d:displayname', 200],
      ['card:addressbook-description', 200],
    ],
  )
  const read = await b.dav('PROPFIND', '/dav/addressbooks/', PROPFIND('d:displayname', 'card:addressbook-description'), { depth: '1' })
  t.match(
    read.body,
    '<d:displayname>Household</d:displayname><card:addressbook-description>Everyone we know</card:addressbook-description>',
  )

  const wrong = await b.dav(
    'PROPPATCH',
    url,
    UPDATE(SET('<ical:calendar-color>#FF0000</ical:calendar-color>', '<d:displayname>X</d:displayname>')),
  )
  t.same(
    [...statuses(wrong.body)],
    [
      ['ical:calendar-color', 403],
      ['d:displayname', 424],
    ],
  )
  t.equal(valueOf((await b.dav('PROPFIND', url, PROPFIND('d:displayname'), { depth: '0' })).body, 'd:displayname'), 'Household')

  await b.dav('PROPPATCH', url, UPDATE(REMOVE('d:displayname', 'card:addressbook-description')))
  const reset = await b.dav('PROPFIND', url, PROPFIND('d:displayname', 'card:addressbook-description'), { depth: '0' })
  t.equal(valueOf(reset.body, 'd:displayname'), 'Contacts')
  t.equal(statuses(reset.body).get('card:addressbook-description'), 404)
})

t.test('PROPPATCH is atomic: one property refused → 403 for it, 424 for the others, nothing stored', async (t) => {
  const b = await davBench(t)
  const url = '/dav/calendars/default/'
  await b.dav('PROPPATCH', url, UPDATE(SET('<d:displayname>Home</d:displayname>')))
  const good = ['<d:displayname>Changed</d:displayname>', '<ical:calendar-order>1</ical:calendar-order>']
  const cases: Array<[string, string]> = [
    ['ical:calendar-color', '<ical:calendar-color>red</ical:calendar-color>'],
    ['ical:calendar-color', '<ical:calendar-color>#FF2968F</ical:calendar-color>'],
    ['ical:calendar-order', '<ical:calendar-order>first</ical:calendar-order>'],
    ['c:calendar-description', `<c:calendar-description>${'x'.repeat(1025)}</c:calendar-description>`],
    ['d:resourcetype', '<d:resourcetype><d:collection/></d:resourcetype>'],
    ['d:getetag', '<d:getetag>"x"</d:getetag>'],
    ['c:calendar-timezone', '<c:calendar-timezone>BEGIN:VCALENDAR</c:calendar-timezone>'],
    ['x:mine', '<x:mine xmlns:x="urn:example:dead">a dead property</x:mine>'],
    ['card:addressbook-description', '<card:addressbook-description>no</card:addressbook-description>'],
  ]
  for (const [bad, xml] of cases) {
    const res = await b.dav('PROPPATCH', url, UPDATE(SET(good[0] as string, xml, good[1] as string)))
    t.equal(res.status, 207, bad)
    const s = statuses(res.body)
    t.equal(s.get(bad), 403, `${bad} refused`)
    t.equal(s.get('d:displayname'), 424, `${bad}: the others fail by dependency`)
    // calendar-order named twice (a good value, then a bad one) fails as a whole.
    t.equal(s.get('ical:calendar-order'), bad === 'ical:calendar-order' ? 403 : 424, bad)
  }
  // A name too long, or empty; a remove of a live property.
  for (const xml of [
    `<d:displayname>${'n'.repeat(257)}</d:displayname>`,
    '<d:displayname> </d:displayname>',
    '<d:displayname><b>x</b></d:displayname>',
    '<d:displayname>bell &#7;</d:displayname>',
    '<d:displayname>half &#xD800;</d:displayname>',
  ]) {
    const res = await b.dav('PROPPATCH', url, UPDATE(SET(xml, good[1] as string)))
    t.same(
      [...statuses(res.body)],
      [
        ['d:displayname', 403],
        ['ical:calendar-order', 424],
      ],
    )
  }
  const live = await b.dav('PROPPATCH', url, UPDATE(REMOVE('d:displayname', 'd:resourcetype')))
  t.same(
    [...statuses(live.body)],
    [
      ['d:resourcetype', 403],
      ['d:displayname', 424],
    ],
  )
  const read = await b.dav('PROPFIND', url, PROPFIND_ALL(...CAL_PROPS), { depth: '0' })
  t.equal(valueOf(read.body, 'd:displayname'), 'Home', 'nothing was stored')
  t.equal(statuses(read.body).get('ical:calendar-order'), 404)

  // Elsewhere nothing is settable; a calendar that does not exist is 404; a malformed body 400.
  const principal = await b.dav('PROPPATCH', '/dav/principal/', UPDATE(SET('<d:displayname>Me</d:displayname>')))
  t.equal(statuses(principal.body).get('d:displayname'), 403)
  t.equal((await b.dav('PROPPATCH', '/dav/calendars/nowhere/', UPDATE(SET('<d:displayname>N</d:displayname>')))).status, 404)
  t.equal((await b.dav('PROPPATCH', url, '<d:propertyupdate xmlns:d="DAV:"><d:set>')).status, 400)
})

t.test('MKCALENDAR with properties in its body; a refused one fails it and nothing is created', async (t) => {
  const b = await davBench(t)
  const made = await b.dav(
    'MKCALENDAR',
    '/dav/calendars/work/',
    MKCALENDAR(
      '<d:displayname>Work</d:displayname>',
      '<ical:calendar-color>#1BADF8FF</ical:calendar-color>',
      '<c:calendar-description>Office</c:calendar-description>',
      // What iOS, macOS and DAVx⁵ also send: accepted (calendars hold events; each event keeps its TZID).
      '<c:supported-calendar-component-set><c:comp name="VEVENT"/></c:supported-calendar-component-set>',
      '<c:calendar-timezone>BEGIN:VCALENDAR\r\nEND:VCALENDAR</c:calendar-timezone>',
      '<c:calendar-free-busy-set><YES/></c:calendar-free-busy-set>',
      '<c:schedule-calendar-transp><c:opaque/></c:schedule-calendar-transp>',
    ),
  )
  t.equal(made.status, 201)
  const home = await b.dav('PROPFIND', '/dav/calendars/', PROPFIND_ALL(...CAL_PROPS), { depth: '1' })
  t.same(
    [...hrefs(home.body).keys()],
    ['/dav/calendars/', '/dav/calendars/birthdays/', '/dav/calendars/default/', '/dav/calendars/work/', '/dav/calendars/tasks-default/'],
  )
  const work = await b.dav('PROPFIND', '/dav/calendars/work/', PROPFIND_ALL(...CAL_PROPS), { depth: '0' })
  t.equal(valueOf(work.body, 'd:displayname'), 'Work')
  t.equal(valueOf(work.body, 'ical:calendar-color'), '#1BADF8FF')
  t.equal(valueOf(work.body, 'c:calendar-description'), 'Office')

  // Extended MKCOL (RFC 5689, GNOME and DAVx⁵) with the calendar resource type.
  const mkcol = `<d:mkcol ${NSES}>${SET('<d:resourcetype><d:collection/><c:calendar/></d:resourcetype>', '<d:displayname>Chores</d:displayname>')}</d:mkcol>`
  t.equal((await b.dav('MKCOL', '/dav/calendars/chores/', mkcol)).status, 201)
  t.equal(
    valueOf((await b.dav('PROPFIND', '/dav/calendars/chores/', PROPFIND('d:displayname'), { depth: '0' })).body, 'd:displayname'),
    'Chores',
  )

  // Refused: a bad colour, a calendar of tasks only, an address book by MKCOL.
  const refusals: Array<[string, string, string, string]> = [
    [
      'MKCALENDAR',
      'ical:calendar-color',
      MKCALENDAR('<d:displayname>Bad</d:displayname>', '<ical:calendar-color>blue</ical:calendar-color>'),
      'c:mkcalendar-response',
    ],
    [
      'MKCALENDAR',
      'c:supported-calendar-component-set',
      MKCALENDAR(
        '<d:displayname>Bad</d:displayname>',
        '<c:supported-calendar-component-set><c:comp name="VTODO"/></c:supported-calendar-component-set>',
      ),
      'c:mkcalendar-response',
    ],
    [
      'MKCOL',
      'd:resourcetype',
      `<d:mkcol ${NSES}>${SET('<d:displayname>Bad</d:displayname>', '<d:resourcetype><d:collection/><card:addressbook/></d:resourcetype>')}</d:mkcol>`,
      'd:mkcol-response',
    ],
  ]
  for (const [method, bad, body, root] of refusals) {
    const res = await b.dav(method, '/dav/calendars/bad/', body)
    t.equal(res.status, 403, `${method} with ${bad}`)
    t.match(res.body, `<${root} `)
    t.same(
      [...statuses(res.body)],
      [
        [bad, 403],
        ['d:displayname', 424],
      ],
    )
    t.equal((await b.dav('PROPFIND', '/dav/calendars/bad/', PROPFIND('d:displayname'), { depth: '0' })).status, 404, 'nothing created')
  }
  const after = await b.dav('PROPFIND', '/dav/calendars/', PROPFIND('d:displayname'), { depth: '1' })
  t.same(
    [...hrefs(after.body).keys()],
    [
      '/dav/calendars/',
      '/dav/calendars/birthdays/',
      '/dav/calendars/chores/',
      '/dav/calendars/default/',
      '/dav/calendars/work/',
      '/dav/calendars/tasks-default/',
    ],
  )

  // Deleting a calendar forgets its properties: made again, it starts from the defaults.
  await b.dav('PUT', '/dav/calendars/work/standup.ics', VEVENT('standup-1', 'Standup'), { 'content-type': 'text/calendar' })
  t.equal((await b.dav('DELETE', '/dav/calendars/work/')).status, 204)
  t.equal((await b.dav('MKCALENDAR', '/dav/calendars/work/')).status, 201)
  const again = await b.dav('PROPFIND', '/dav/calendars/work/', PROPFIND_ALL(...CAL_PROPS), { depth: '0' })
  t.equal(valueOf(again.body, 'd:displayname'), 'work')
  t.equal(statuses(again.body).get('ical:calendar-color'), 404)
})

t.test('another user’s calendars and address book are unaffected', async (t) => {
  const b = await davBench(t)
  await b.dav(
    'PROPPATCH',
    '/dav/calendars/default/',
    UPDATE(SET('<d:displayname>Anna’s</d:displayname>', '<ical:calendar-color>#FF0000</ical:calendar-color>')),
  )
  await b.dav('PROPPATCH', '/dav/addressbooks/contacts/', UPDATE(SET('<d:displayname>Anna’s people</d:displayname>')))

  const other = await addUser(b.app, b.token)
  const key = await apiKey(b.app, b.token, { scope: 'dav', user_id: other.userId })
  const as = (method: string, url: string, body: string) =>
    b.app.inject({
      method: method as 'GET',
      url,
      payload: body,
      headers: { ...basicHeader(other.email, key), depth: '0', 'content-type': 'application/xml' },
    })
  const cal = await as('PROPFIND', '/dav/calendars/default/', PROPFIND_ALL('d:displayname', 'ical:calendar-color'))
  t.equal(valueOf(cal.body, 'd:displayname'), 'default')
  t.equal(statuses(cal.body).get('ical:calendar-color'), 404)
  const book = await as('PROPFIND', '/dav/addressbooks/contacts/', PROPFIND('d:displayname'))
  t.equal(valueOf(book.body, 'd:displayname'), 'Contacts')

  // Their own change does not reach the first user.
  t.equal((await as('PROPPATCH', '/dav/calendars/default/', UPDATE(SET('<d:displayname>Ben’s</d:displayname>')))).statusCode, 207)
  t.equal(valueOf((await as('PROPFIND', '/dav/calendars/default/', PROPFIND('d:displayname'))).body, 'd:displayname'), 'Ben’s')
  t.equal(
    valueOf((await b.dav('PROPFIND', '/dav/calendars/default/', PROPFIND('d:displayname'), { depth: '0' })).body, 'd:displayname'),
    'Anna’s',
  )
})
