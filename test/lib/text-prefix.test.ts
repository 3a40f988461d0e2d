import fc from 'fast-check'
import t from 'tap'
import { firstCodePoints } from '../../lib/text-prefix.js'

t.test('the first code points of a text, as Array.from counts them', async (t) => {
  t.equal(firstCodePoints('a😀b', 2), 'a😀', 'a surrogate pair is one code point')
  t.equal(firstCodePoints('ab', 5), 'ab')
  t.equal(firstCodePoints('\ud800x', 1), '\ud800', 'a lone surrogate is one')
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.integer({ min: 0, max: 200 }), (text, n) => {
      return firstCodePoints(text, n) === Array.from(text).slice(0, n).join('')
    }),
  )
})
