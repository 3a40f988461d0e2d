import t from 'tap'
import { parseMultistatus, text } from '../../lib/webdav-xml/index.js'

/** The multistatus a client reads: entities never expand; escapes and character references are decoded once. */
t.test('a DOCTYPE entity bomb is refused, never expanded', async (t) => {
  const laughs = [
    '<!ENTITY lol "lol">',
    ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i || ''};`.repeat(10)}">`),
  ].join('')
  const xml = `<?xml version="1.0"?><!DOCTYPE multistatus [${laughs}]><multistatus xmlns="DAV:"><response><href>/a/&lol9;</href><propstat><prop><getetag>"e"</getetag></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>`
  t.throws(() => parseMultistatus(xml), /DOCTYPE/)
})

t.test('escapes, character references, namespaces and statuses', async (t) => {
  const xml = `<?xml version="1.0"?>
<D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:carddav">
  <D:response><D:href>/book/a%20b.vcf</D:href>
    <D:propstat><D:prop><D:getetag>&quot;1&quot;</D:getetag><C:address-data>BEGIN:VCARD&#13;
FN:A &amp; B &lt;c&gt; &#x263A;&#13;
END:VCARD</C:address-data></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
    <D:propstat><D:prop><D:displayname/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>
  </D:response>
  <D:response><D:href>/book/gone.vcf</D:href><D:status>HTTP/1.1 404 Not Found</D:status></D:response>
  <D:sync-token>http://example.test/sync/2</D:sync-token>
</D:multistatus>`
  const ms = parseMultistatus(xml)
  t.equal(ms.syncToken, 'http://example.test/sync/2')
  t.same(
    ms.responses.map((r) => [r.href, r.status]),
    [
      ['/book/a%20b.vcf', null],
      ['/book/gone.vcf', 404],
    ],
  )
  t.equal(text(ms.responses[0]?.props.getetag), '"1"')
  t.equal(text(ms.responses[0]?.props['address-data']), 'BEGIN:VCARD\r\nFN:A & B <c> \u263a\r\nEND:VCARD')
  t.notOk('displayname' in (ms.responses[0]?.props ?? {}), 'a 404 propstat brings no property')
  t.throws(() => parseMultistatus('<html>not dav</html>'))
})
