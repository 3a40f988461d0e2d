import t from 'tap'
import { StartsCache } from '../engine/starts-cache.js'

/** What one series of `n` starts counts for in the cache's estimate (its array and its entry). */
const entryBytes = (n: number) => 8 * n + 250
const starts = (n: number, from = 0) => Float64Array.from({ length: n }, (_, i) => from + i * 1000)

t.test('the byte budget: the windows asked for longest ago go first, whole; the one in use never', async (t) => {
  const limit = 3 * (300 + 10 * entryBytes(4))
  const cache = new StartsCache(limit, () => false)
  for (const span of ['a', 'b', 'c']) {
    const window = cache.window(span)
    for (let s = 0; s < 10; s++) window.keep(`series-${s}`, '"1"', starts(4))
  }
  t.equal(cache.heldBytes, limit, 'three windows of ten series fill it exactly')
  t.ok(cache.window('a').get('series-3', '"1"'), 'a, asked for again, is now the most recent')
  const d = cache.window('d')
  d.keep('series-0', '"1"', starts(4))
  t.ok(cache.heldBytes <= limit, `still within ${limit} bytes: ${cache.heldBytes}`)
  t.notOk(cache.window('b').get('series-0', '"1"'), 'b, the least recently asked for, went')
  t.ok(cache.window('a').get('series-0', '"1"'), 'a stays')

  // One window larger than the whole budget: kept as far as it fits, never past it.
  const big = cache.window('big')
  for (let s = 0; s < 100; s++) big.keep(`series-${s}`, '"1"', starts(50))
  t.ok(cache.heldBytes <= limit, `a window larger than the budget stays within it: ${cache.heldBytes}`)
  t.ok(big.get('series-0', '"1"'), 'its first series are kept')
  t.notOk(big.get('series-99', '"1"'), 'not those past the budget')
})

t.test('a series is found at its version only, and a change drops it from every window', async (t) => {
  const cache = new StartsCache(1 << 20, () => false)
  const march = cache.window('march')
  const april = cache.window('april')
  march.keep('swim', '"1"', starts(4))
  april.keep('swim', '"1"', starts(4, 10))
  t.notOk(march.get('swim', '"2"'), 'another version: not found')
  cache.drop('swim')
  t.notOk(march.get('swim', '"1"'))
  t.notOk(april.get('swim', '"1"'))
  april.keep('swim', '"3"', starts(2))
  cache.clear()
  t.notOk(april.get('swim', '"3"'), 'cleared: a window still held by a list finds nothing')
  t.equal(cache.heldBytes, 0)
})

t.test('nothing is kept while a transaction is open', async (t) => {
  let open = true
  const cache = new StartsCache(1 << 20, () => open)
  cache.window('w').keep('swim', '"1"', starts(4))
  t.notOk(cache.window('w').get('swim', '"1"'))
  open = false
  cache.window('w').keep('swim', '"1"', starts(4))
  t.same(Array.from(cache.window('w').get('swim', '"1"') ?? []), [0, 1000, 2000, 3000])
})
