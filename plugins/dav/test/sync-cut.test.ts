import t from 'tap'
import { auth } from '../../../test/helper.js'
import { upload } from '../../records/test/records-app.js'
import { davBench, hrefs, tokenOf } from './dav-app.js'

/**
 * A first sync-collection larger than the answer budget is cut with a 507 for the collection. Its
 * token must not be the head token (the client would believe it holds the whole collection and
 * never ask for the rest): following the tokens it is given, a client ends with every card, and
 * with the changes made meanwhile to cards it had already received.
 */
const CARDS = 60
const SYNC_DATA = (token = '') =>
  `<?xml version="1.0"?><d:sync-collection xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/><card:address-data/></d:prop></d:sync-collection>`
const CUT = /<d:href>\/dav\/addressbooks\/contacts\/<\/d:href><d:status>HTTP\/1.1 507 Insufficient Storage<\/d:status>/

t.test('a cut first sync gives a token that continues until the client has every card', async (t) => {
  // The smallest answer budget: 60 cards of 2 KB take two answers or more.
  const b = await davBench(t, { HEARTH_ANSWER_BUDGET: '65536' })
  const note = 'n'.repeat(2000)
  const cards = Array.from(
    { length: CARDS },
    (_, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Person ${i}\r\nNOTE:${note}\r\nEND:VCARD\r\n`,
  ).join('')
  const body = upload('contacts.vcf', cards, 'text/vcard')
  const imported = await b.app.inject({
    method: 'POST',
    url: '/api/v1/contacts/import',
    headers: { ...auth(b.token), ...body.headers },
    payload: body.payload,
  })
  t.equal(imported.json().data.imported, CARDS)

  const first = await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC_DATA())
  t.equal(first.status, 207)
  t.match(first.body, CUT, 'the first answer is cut and says so')
  const head = tokenOf((await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC_DATA(tokenOf(first.body)))).body)
  const held = new Map<string, string>()
  const take = (answer: string) => {
    for (const [href, status] of hrefs(answer)) {
      if (href === '/dav/addressbooks/contacts/') continue
      if (status === 404) held.delete(href)
      else held.set(href, /<card:address-data>([\s\S]*?)<\/card:address-data>/.exec(answer.slice(answer.indexOf(href)))?.[1] ?? '')
    }
  }
  take(first.body)
  t.ok(held.size > 0 && held.size < CARDS, `the first answer holds ${held.size} of ${CARDS} cards`)
  t.not(tokenOf(first.body), head, 'its token is not the head token')

  // Changes while the client is still catching up: one card it has is edited, another deleted, a new one added.
  const [edited, deleted] = [...held.keys()]
  // A card Hearth wrote carries its record's id in its UID.
  const idOf = (href: string) => /UID:(?:urn:uuid:)?([0-9a-f-]{36})/.exec(held.get(href) ?? '')?.[1]
  const editedId = idOf(edited as string)
  const deletedId = idOf(deleted as string)
  t.ok(editedId && deletedId, 'the cards are found by their ids')
  t.equal((await b.json('PATCH', `/api/v1/contacts/${editedId}`, { display_name: 'Edited Meanwhile' })).status, 200)
  t.equal((await b.json('DELETE', `/api/v1/contacts/${deletedId}`)).status, 200)
  t.equal((await b.json('POST', '/api/v1/contacts', { display_name: 'Added Meanwhile' })).status, 201)

  let token = tokenOf(first.body)
  let rounds = 1
  for (;;) {
    const next = await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC_DATA(token))
    t.equal(next.status, 207, `round ${++rounds}`)
    take(next.body)
    const given = tokenOf(next.body)
    if (!CUT.test(next.body)) {
      token = given
      break
    }
    t.not(given, token, 'a cut answer moves the token on')
    token = given
    if (rounds > 10) break
  }
  t.ok(rounds > 1, `${rounds} answers`)
  const listing = hrefs((await b.dav('PROPFIND', '/dav/addressbooks/contacts/', undefined, { depth: '1' })).body)
  listing.delete('/dav/addressbooks/contacts/')
  t.same([...held.keys()].sort(), [...listing.keys()].sort(), 'the client holds exactly the cards the collection has')
  t.match(held.get(edited as string), /FN:Edited Meanwhile/, 'with the edit made while it caught up')
  t.notOk(held.has(deleted as string), 'without the card deleted meanwhile')
  t.ok(
    [...held.values()].some((card) => card.includes('FN:Added Meanwhile')),
    'with the card added meanwhile',
  )
  const again = await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC_DATA(token))
  t.equal(hrefs(again.body).size, 0, 'and the last token has nothing more to give')
})
