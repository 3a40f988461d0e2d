import t from 'tap'
import { davBench, VCARD, VEVENT } from './dav-app.js'

/**
 * UIDs are unique per collection whichever side wrote the record (RFC 4791 5.3.2.1, RFC 6352 6.3.2.1):
 * a PUT at another href carrying the UID of a record made through the JSON API, or by another DAV
 * PUT, is refused with 409 and the no-uid-conflict precondition naming the object that holds it,
 * and no second record appears.
 */
const uidOf = (text: string) => /^UID:(.*)$/m.exec(text)?.[1]?.trim() ?? ''
const CARD = { 'content-type': 'text/vcard' }
const ICS = { 'content-type': 'text/calendar' }

t.test('a contact made through the JSON API: its UID cannot be taken by a PUT at another href', async (t) => {
  const b = await davBench(t)
  const made = (await b.json('POST', '/api/v1/contacts', { display_name: 'Ann' })).body.data
  const own = `/dav/addressbooks/contacts/${made.id}.vcf`
  const uid = uidOf((await b.dav('GET', own)).body)
  t.ok(uid.includes(made.id), `the card's UID is its record's (${uid})`)
  for (const version of ['3.0', '4.0']) {
    const card = VCARD(version === '3.0' ? made.id : `urn:uuid:${made.id}`, 'Ann Again').replace('VERSION:3.0', `VERSION:${version}`)
    const twin = await b.dav('PUT', '/dav/addressbooks/contacts/elsewhere.vcf', card, CARD)
    t.equal(twin.status, 409, `vCard ${version}: refused`)
    t.match(twin.body, `<card:no-uid-conflict><d:href>${own}</d:href></card:no-uid-conflict>`, 'naming the object that holds the UID')
  }
  const list = (await b.json('GET', '/api/v1/contacts')).body.data
  t.equal(list.length, 1, 'no second record')
  t.equal((await b.dav('PUT', own, VCARD(uid, 'Ann Renamed'), CARD)).status, 204, 'the object itself may be written back with its UID')
})

t.test('an event made through the JSON API, and DAV objects between themselves', async (t) => {
  const b = await davBench(t)
  const ev = (await b.json('POST', '/api/v1/events', { title: 'Gym', start_at: '2026-03-02T18:00:00Z' })).body.data
  const own = `/dav/calendars/default/${ev.id}.ics`
  const uid = uidOf((await b.dav('GET', own)).body)
  const twin = await b.dav('PUT', '/dav/calendars/default/copy.ics', VEVENT(uid, 'Gym again'), ICS)
  t.equal(twin.status, 409)
  t.match(twin.body, `<c:no-uid-conflict><d:href>${own}</d:href></c:no-uid-conflict>`)
  t.equal((await b.json('GET', '/api/v1/events')).body.data.length, 1, 'no second event')

  t.equal((await b.dav('PUT', '/dav/addressbooks/contacts/a.vcf', VCARD('shared', 'A'), CARD)).status, 201)
  t.equal((await b.dav('PUT', '/dav/addressbooks/contacts/b.vcf', VCARD('other', 'B'), CARD)).status, 201)
  const taken = await b.dav('PUT', '/dav/addressbooks/contacts/c.vcf', VCARD('shared', 'C'), CARD)
  t.equal(taken.status, 409)
  t.match(taken.body, '<d:href>/dav/addressbooks/contacts/a.vcf</d:href>')
  const moved = await b.dav('PUT', '/dav/addressbooks/contacts/b.vcf', VCARD('shared', 'B'), CARD)
  t.equal(moved.status, 409, 'replacing an object with a body carrying another object’s UID is refused too')
  t.match((await b.dav('GET', '/dav/addressbooks/contacts/b.vcf')).body, 'UID:other', 'and changes nothing')

  t.equal((await b.dav('MKCALENDAR', '/dav/calendars/work/')).status, 201)
  t.equal(
    (await b.dav('PUT', '/dav/calendars/work/gym.ics', VEVENT(uid, 'Gym at work'), ICS)).status,
    201,
    'another calendar is another collection',
  )
})
