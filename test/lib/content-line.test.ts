import fc from 'fast-check'
import t from 'tap'
import { parseComponents } from '../../lib/content-line/components.js'
import { contentLine, escapeText, fold, parseContentLine, splitEscaped, unescapeText, unfold } from '../../lib/content-line/lines.js'
import { formatStamp, parseStamp } from '../../lib/content-line/stamps.js'

/** The line grammar vCard and iCalendar share: what every card and calendar reader relies on. */

t.test('folding: no physical line over 75 octets, never inside a UTF-8 character; unfolding gives it back', async (t) => {
  const long = `DESCRIPTION:${'Grüße aus Köln, 東京 '.repeat(20)}`
  const folded = fold(long)
  for (const line of folded.split('\r\n')) t.ok(Buffer.byteLength(line) <= 75, `${Buffer.byteLength(line)} octets`)
  t.same(
    unfold(folded).map((l) => l.text),
    [long],
  )
  t.same(unfold('A:1\r\n\r\nB:2\n C'), [
    { line: 1, text: 'A:1' },
    { line: 3, text: 'B:2C' },
  ])
})

t.test('parameters: groups, quoting, lists, RFC 6868, vCard 2.1 bare types', async (t) => {
  const cl = parseContentLine(4, 'item1.ADR;TYPE=home,pref;LABEL="a:b;c^n^\'x^\'":;;Main St')
  t.equal(cl.group, 'item1')
  t.equal(cl.name, 'ADR')
  t.same(cl.params.get('TYPE'), ['home', 'pref'])
  t.same(cl.params.get('LABEL'), ['a:b;c\n"x"'])
  t.equal(cl.value, ';;Main St')
  t.same(parseContentLine(1, 'TEL;CELL;PREF:123').params.get('TYPE'), ['CELL', 'PREF'])
  t.throws(() => parseContentLine(9, 'NOCOLON'), /line 9: expected ':'/)
  t.equal(contentLine('X', [['CN', 'Doe; "J"']], 'v'), 'X;CN="Doe; ^\'J^\'":v')
})

t.test('text escaping round-trips, and no control character reaches a written line', async (t) => {
  fc.assert(
    fc.property(fc.string(), (text) => unescapeText(escapeText(text)) === text.replace(/\r\n|\r/g, '\n')),
    { numRuns: 300 },
  )
  t.same(splitEscaped('a\\;b;c\\,d;', ';'), ['a;b', 'c,d', ''])
  const line = contentLine('SUMMARY', [['X', 'a\r\nb']], 'x\r\nBEGIN:VEVENT')
  t.notMatch(line, /[\r\n](?! )/, 'a CR or LF in a value cannot start a line of its own')
})

t.test('components: BEGIN/END nesting, broken entries, hostile depth and any text in linear time', async (t) => {
  const { roots, errors } = parseComponents(
    'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:a\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nBAD LINE\r\nEND:VEVENT\r\nEND:VCALENDAR\r\nX:1\r\n',
    1,
  )
  t.equal(roots.length, 1)
  t.same(
    roots[0].components.map((c) => [c.line, c.broken]),
    [
      [2, undefined],
      [5, "line 6: expected ':' after BAD"],
    ],
  )
  t.same(errors, [{ line: 9, error: 'X outside of any BEGIN/END block' }])
  const deep = parseComponents(`BEGIN:VCARD\r\n${'BEGIN:X\r\n'.repeat(50_000)}`)
  t.match(deep.roots[0].broken, /never closed|nested deeper/)
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.constantFrom('BEGIN:VCARD', 'END:VCARD', 'BEGIN:X', 'FN:x'), fc.string()), { maxLength: 40 }),
      (lines) => {
        const text = lines.join('\r\n')
        const { roots, errors } = parseComponents(text.repeat(Math.ceil(64_000 / Math.max(text.length, 1))))
        return Array.isArray(roots) && Array.isArray(errors)
      },
    ),
    { numRuns: 50 },
  )
})

t.test('stamps: REV / DTSTAMP both ways, basic and extended forms', async (t) => {
  t.equal(parseStamp('20261122T081500Z'), '2026-11-22T08:15:00.000Z')
  t.equal(parseStamp('2026-11-22T08:15:00.123Z'), '2026-11-22T08:15:00.000Z')
  t.equal(parseStamp('20261122'), undefined)
  t.equal(formatStamp('2026-11-22T08:15:00.999Z'), '20261122T081500Z')
})
