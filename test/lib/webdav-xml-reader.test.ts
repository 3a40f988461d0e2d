import fc from 'fast-check'
import t from 'tap'
import { parseXml, parseXmlPaced, XmlError, type XmlNode } from '../../lib/webdav-xml/index.js'

/** The reader WebDAV bodies and multistatus answers go through: what it accepts, what it refuses, and that it reads what was written. */

t.test('what WebDAV clients send is read', async (t) => {
  const doc = [
    '\uFEFF<?xml version="1.0" encoding="utf-8"?>',
    '<!-- a client comment -->',
    '<d:propfind xmlns:d="DAV:" xmlns="urn:default">',
    '  <d:prop>',
    '    <getetag k = \'single\'  j=" spaced "/>',
    '    <x:y xmlns:x="urn:x">one <!-- split --> two &amp; &#x41;</x:y>',
    '    <d:href><![CDATA[/dav/a&b <c>.vcf]]></d:href>',
    '    <?client-instruction ignored?>',
    '  </d:prop  >',
    '</d:propfind>',
    '<!-- after -->\n',
  ].join('\n')
  const root = parseXml(doc)
  t.same([root.ns, root.name], ['DAV:', 'propfind'])
  const [etag, y, href] = root.children[0]?.children ?? []
  t.same(etag, { ns: 'urn:default', name: 'getetag', attrs: { k: 'single', j: 'spaced' }, children: [], text: '' }, 'the default namespace')
  t.same([y?.ns, y?.text], ['urn:x', 'one  two & A'], 'text around a comment is one text, references decoded')
  t.equal(href?.text, '/dav/a&b <c>.vcf', 'a CDATA section is taken as written')
  t.same(await parseXmlPaced(doc), root, 'the paced reader reads the same')
})

t.test('what is not well-formed XML is refused, as an XmlError', async (t) => {
  const refused = [
    '<a><b></a></b>',
    '<a></b>',
    '<a>',
    '<a b="1"c="2"/>',
    '<a b="1" b="2"/>',
    '<a b=1/>',
    '<a b/>',
    '<a b="<"/>',
    '<a>x & y</a>',
    '<a>&#;</a>',
    '<a b="&"/>',
    '<a/>text',
    '<a/><b/>',
    'text<a/>',
    '<1a/>',
    '< a/>',
    '<a></ a>',
    '<!-- c --><?xml version="1.0"?><a/>',
    '<a><!-- unclosed</a>',
    '<a><![CDATA[ unclosed</a>',
    '<![CDATA[x]]><a/>',
    '<a><!ELEMENT x ANY></a>',
    '<a xmlns:p=""/>',
    '',
    '   ',
  ]
  const refusal = (read: () => unknown) => {
    try {
      read()
    } catch (err) {
      return err
    }
    return null
  }
  for (const doc of refused) t.ok(refusal(() => parseXml(doc)) instanceof XmlError, JSON.stringify(doc))
  t.ok(
    await parseXmlPaced('<a><b></a>').then(
      () => false,
      (err: unknown) => err instanceof XmlError,
    ),
    'the paced reader refuses the same',
  )
})

interface Tree {
  name: string
  attrs: Array<[string, string]>
  kids: Array<Tree | string>
}

const names = fc.constantFrom('prop', 'href', 'getetag', 'comp-filter', 'x.y_z-1', 'été')
const text = fc.string({ maxLength: 12, unit: fc.constantFrom('a', ' ', '&', '<', '>', '"', "'", 'é', '\u263a', '\n') })
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;')
const tree = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.record({
    name: names,
    attrs: fc.uniqueArray(fc.tuple(fc.constantFrom('name', 'start', 'end', 'match-type'), text), { maxLength: 3, selector: (a) => a[0] }),
    kids: fc.array(fc.oneof({ depthSize: 'small', maxDepth: 5 }, text, tie('node')), { maxLength: 4 }),
  }),
}))
const written = (n: Tree): string =>
  `<x:${n.name}${n.attrs.map(([k, v]) => ` ${k}="${escape(v)}"`).join('')}>${n.kids.map((k) => (typeof k === 'string' ? escape(k) : written(k))).join('')}</x:${n.name}>`
/** What the reader gives for a tree: the text of each element, its runs between children trimmed and joined. */
const expected = (n: Tree): XmlNode => {
  const runs: string[] = []
  let run = ''
  for (const k of n.kids) {
    if (typeof k === 'string') run += k
    else {
      runs.push(run.trim())
      run = ''
    }
  }
  runs.push(run.trim())
  return {
    ns: 'urn:x',
    name: n.name,
    attrs: Object.fromEntries(n.attrs.map(([k, v]) => [k, v.trim()])),
    children: n.kids.filter((k): k is Tree => typeof k !== 'string').map(expected),
    text: runs.join(''),
  }
}

t.test('property: whatever tree is written, it is read back as written', async () => {
  await fc.assert(
    fc.asyncProperty(tree.node, async (n) => {
      const doc = `<?xml version="1.0"?><root xmlns:x="urn:x">${written(n)}</root>`
      const want = { ns: '', name: 'root', attrs: {}, children: [expected(n)], text: '' }
      t.same(parseXml(doc), want)
      t.same(await parseXmlPaced(doc), want)
    }),
    { numRuns: 300 },
  )
})

t.test('a megabyte multiget of 20,000 hrefs is read whole by the paced reader', async (t) => {
  const hrefs = '<d:href>/dav/addressbooks/contacts/card.vcf</d:href>'.repeat(20_000)
  const doc = `<c:addressbook-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/></d:prop>${hrefs}</c:addressbook-multiget>`
  t.ok(doc.length > 1_000_000, `${doc.length} characters`)
  const root = await parseXmlPaced(doc)
  t.equal(root.children.length, 20_001)
})
