import t from 'tap'
import { parseContentLine } from '../../lib/content-line/lines.js'
import { decodeQuotedPrintable, groupLabels, prefRank, typedParams, typeValues } from '../../lib/vcard/params.js'

/** The vCard conventions every card reader meets: Android's 2.1 exports, Apple's labels, preference by version. */

t.test('vCard 2.1 quoted-printable values decode in their CHARSET', async (t) => {
  const cl = parseContentLine(3, 'NOTE;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Gr=C3=BC=C3=9Fe=0D=0Aline')
  t.equal(decodeQuotedPrintable(cl).value, 'Grüße\nline')
  const latin = parseContentLine(3, 'FN;ENCODING=QUOTED-PRINTABLE;CHARSET=ISO-8859-1:J=F6rg')
  t.equal(decodeQuotedPrintable(latin).value, 'Jörg')
  t.throws(() => decodeQuotedPrintable(parseContentLine(4, 'FN;ENCODING=QUOTED-PRINTABLE;CHARSET=X-NONE:a')), /line 4: unknown CHARSET/)
  const plain = parseContentLine(1, 'FN:a=20b')
  t.equal(decodeQuotedPrintable(plain), plain, 'other values untouched')
})

t.test("Apple's grouped labels, TYPE lists in any case, and the preferred entry", async (t) => {
  const lines = ['item1.EMAIL:a@example.org', 'item1.X-ABLabel:_$!<Work>!$_', 'item2.X-ABLABEL:Gym'].map((l, i) =>
    parseContentLine(i + 1, l),
  )
  t.same(
    [...groupLabels(lines)],
    [
      ['item1', 'Work'],
      ['item2', 'Gym'],
    ],
  )
  t.same(typeValues(parseContentLine(1, 'TEL;TYPE=CELL,Voice;type=pref:1')), ['cell', 'voice', 'pref'])
  t.equal(prefRank(parseContentLine(1, 'EMAIL;PREF=2:a')), 2)
  t.equal(prefRank(parseContentLine(1, 'EMAIL;TYPE=pref:a')), 1)
  t.equal(prefRank(parseContentLine(1, 'EMAIL:a')), Number.POSITIVE_INFINITY)
  t.same(typedParams(['work'], true, '4.0'), [
    ['TYPE', ['work']],
    ['PREF', '1'],
  ])
  t.same(typedParams(['work'], true, '3.0'), [['TYPE', ['work', 'pref']]])
  t.same(typedParams(['work'], false, '3.0'), [['TYPE', ['work']]])
})
