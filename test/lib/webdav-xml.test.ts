import fc from 'fast-check'
import t from 'tap'
import { ByteBudget } from '../../lib/byte-budget.js'
import { child, collectMultistatus, errorBody, href, NS, parseMultistatus, parseXml, statusResponse } from '../../lib/webdav-xml/index.js'

t.test('the reader: namespaces resolved, DOCTYPE refused, depth and size bounded, references decoded one way', async (t) => {
  const root = parseXml('<a:propfind xmlns:a="DAV:"><a:prop><x:y xmlns:x="urn:x" k="1&amp;2"/></a:prop></a:propfind>')
  t.equal(root.ns, NS.dav)
  t.same(child(root, NS.dav, 'prop')?.children[0], { ns: 'urn:x', name: 'y', attrs: { k: '1&2' }, children: [], text: '' })
  t.throws(() => parseXml('<!DOCTYPE x [<!ENTITY e "e">]><x>&e;</x>'), /DOCTYPE/)
  t.throws(() => parseXml(`${'<a>'.repeat(70)}${'</a>'.repeat(70)}`), /nested too deep/)
  t.throws(() => parseXml(`<a>${'x'.repeat(200)}</a>`, 100), /larger than/)
  t.throws(() => parseXml('<a><b></a>'), /malformed XML/)
  t.throws(() => parseXml('<p:a/>'), /undeclared namespace prefix/)
  t.equal(parseXml('<a>&#x263A;&#65;&lt;</a>').text, '\u263aA<')
  t.equal(parseXml('<a>&#0;&#x110000;</a>').text, '&#0;&#x110000;', 'a reference to no code point stays as written')
  t.equal(parseXml('<a>&#7;</a>').text, '\u0007', 'a control character is decoded: its reader refuses it')
  t.equal(parseXml('<a>&nbsp;</a>').text, '&nbsp;', 'an undeclared entity stays as written')
})

t.test('the writer: error bodies carry their precondition and its content', async (t) => {
  const body = errorBody(NS.carddav, 'no-uid-conflict', href('/dav/a b.vcf'))
  t.match(body, '<d:error ')
  t.match(body, '<card:no-uid-conflict><d:href>/dav/a b.vcf</d:href></card:no-uid-conflict>')
  t.same(parseXml(body).children[0]?.children[0]?.text, '/dav/a b.vcf')
})

t.test('a streamed multistatus stays within its budget, cut with a 507 the client can read', async (t) => {
  const budget = new ByteBudget(2000)
  const made: number[] = []
  function* responses() {
    for (let i = 0; i < 100; i++) {
      made.push(i)
      yield statusResponse(`/c/${i}`, 404)
    }
  }
  const xml = await collectMultistatus({ responses: responses(), cutAt: '/c/', budget, tail: () => '<d:sync-token>t</d:sync-token>' })
  t.ok(Buffer.byteLength(xml) <= 2000, `${Buffer.byteLength(xml)} bytes`)
  t.equal(budget.spent, Buffer.byteLength(xml), 'the budget counts every byte written')
  const ms = parseMultistatus(xml)
  const last = ms.responses.at(-1)
  t.same([last?.href, last?.status], ['/c/', 507])
  t.match(xml, '<d:error><d:number-of-matches-within-limits/></d:error>')
  t.equal(ms.syncToken, 't')
  t.ok(made.length < 100 && made.length === ms.responses.length, 'no response is made past the one that did not fit')
})

t.test('property: whatever the responses, the answer is well-formed and within the budget', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ maxLength: 3000 }), { maxLength: 60 }),
      fc.integer({ min: 1200, max: 40_000 }),
      async (texts, limit) => {
        const budget = new ByteBudget(limit)
        const xml = await collectMultistatus({
          responses: texts.map(
            (s, i) => `<d:response>${href(`/c/${i}`)}<d:status>HTTP/1.1 200 ${s.replace(/[^ -~]|[<>&"]/g, '')}</d:status></d:response>`,
          ),
          cutAt: '/c/',
          budget,
        })
        if (Buffer.byteLength(xml) > limit) return false
        return parseXml(xml).name === 'multistatus'
      },
    ),
    { numRuns: 200 },
  )
})
