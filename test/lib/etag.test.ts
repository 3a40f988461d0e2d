import fc from 'fast-check'
import t from 'tap'
import { entityTags, ifMatchHolds, ifNoneMatchHolds, parseEntityTag, strongMatch, weakMatch } from '../../lib/etag.js'

/** Conditional requests as RFC 9110 §13.1.1-2 judge them: what keeps a client from overwriting another's change. */

t.test('entity tag lists: *, strong and weak tags, commas inside a tag, garbage skipped', async (t) => {
  t.equal(entityTags(' * '), '*')
  t.same(entityTags('"a", W/"b",,"c,d"'), [
    { weak: false, opaque: '"a"' },
    { weak: true, opaque: '"b"' },
    { weak: false, opaque: '"c,d"' },
  ])
  t.same(entityTags('abc, "x"'), [{ weak: false, opaque: '"x"' }], 'an unquoted member names nothing')
  t.same(entityTags('"open'), [], 'an unterminated tag names nothing')
  t.equal(entityTags('"a", *'), '*', 'a * among tags is read as *')
  t.same(parseEntityTag('W/"7"'), { weak: true, opaque: '"7"' })
  t.equal(parseEntityTag('"7", "8"'), null)
  const [strong, weak] = [parseEntityTag('"1"')!, parseEntityTag('W/"1"')!]
  t.ok(strongMatch(strong, strong))
  t.notOk(strongMatch(strong, weak))
  t.ok(weakMatch(strong, weak))
})

t.test('If-Match: * when something exists, else a strong match with a listed tag', async (t) => {
  t.ok(ifMatchHolds('*', '"3"'))
  t.notOk(ifMatchHolds('*', null), 'nothing exists: * does not hold')
  t.ok(ifMatchHolds('"2", "3"', '"3"'))
  t.notOk(ifMatchHolds('W/"3"', '"3"'), 'a weak tag never matches strongly')
  t.notOk(ifMatchHolds('"3"', 'W/"3"'), 'nor does a weak current tag')
  t.notOk(ifMatchHolds('"4"', '"3"'))
})

t.test('If-None-Match: * only when nothing exists, else no listed tag matches weakly', async (t) => {
  t.ok(ifNoneMatchHolds('*', null))
  t.notOk(ifNoneMatchHolds('*', '"3"'))
  t.notOk(ifNoneMatchHolds('W/"3"', '"3"'), 'a weak match is a match here')
  t.notOk(ifNoneMatchHolds('"1", "3"', '"3"'))
  t.ok(ifNoneMatchHolds('"4"', '"3"'))
  t.ok(ifNoneMatchHolds('"3"', null))
})

t.test('any header is read in one pass, never a throw', async (t) => {
  fc.assert(
    fc.property(fc.string(), (header) => {
      const list = entityTags(header)
      return list === '*' || Array.isArray(list)
    }),
    { numRuns: 500 },
  )
  const long = `${'W/"x", '.repeat(40_000)}"y`
  t.equal((entityTags(long) as unknown[]).length, 40_000)
})
