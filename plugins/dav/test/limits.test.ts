import t from 'tap'
import { auth } from '../../../test/helper.js'
import { upload } from '../../records/test/records-app.js'
import { MAX_REPORT_ITEMS } from '../reports.js'
import { davBench, hrefs, PROPFIND, SYNC, tokenOf } from './dav-app.js'

/**
 * An address book past the per-answer bound, filled by one JSON import: the answer stops at
 * MAX_REPORT_ITEMS with a 507 for the collection, and the import (too large for its event to list
 * every id) invalidates older sync tokens, so clients sync again in full instead of missing cards.
 */
t.test('a collection larger than one answer: 507 past the bound; a large import invalidates older sync tokens', async (t) => {
  const b = await davBench(t)
  const before = tokenOf((await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC())).body)
  const total = MAX_REPORT_ITEMS + 5
  const cards = Array.from({ length: total }, (_, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Person ${i}\r\nEND:VCARD\r\n`).join('')
  const body = upload('contacts.vcf', cards, 'text/vcard')
  const imported = await b.app.inject({
    method: 'POST',
    url: '/api/v1/contacts/import',
    headers: { ...auth(b.token), ...body.headers },
    payload: body.payload,
  })
  t.equal(imported.statusCode, 200, imported.body.slice(0, 300))
  t.equal(imported.json().data.imported, total)

  const listing = await b.dav('PROPFIND', '/dav/addressbooks/contacts/', PROPFIND('d:getetag'), { depth: '1' })
  const statuses = hrefs(listing.body)
  t.equal(statuses.size, MAX_REPORT_ITEMS + 1, 'the collection itself and the first MAX_REPORT_ITEMS objects')
  t.equal(statuses.get('/dav/addressbooks/contacts/'), 507, 'then the collection says the answer is cut')
  const initial = await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC())
  t.match(initial.body, /<d:href>\/dav\/addressbooks\/contacts\/<\/d:href><d:status>HTTP\/1.1 507 Insufficient Storage<\/d:status>/)
  const stale = await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC(before))
  t.equal(stale.status, 403, 'a token from before the import is refused')
  t.match(stale.body, '<d:valid-sync-token/>')
  t.equal((await b.dav('REPORT', '/dav/addressbooks/contacts/', SYNC(tokenOf(initial.body)))).status, 207, 'a token after it is fine')
})
