import t from 'tap'
import { mapLimit } from '../../lib/map-limit.js'

t.test('answers in order, never more than the limit under way', async (t) => {
  let running = 0
  let most = 0
  const out = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
    running++
    most = Math.max(most, running)
    await new Promise((r) => setTimeout(r, n))
    running--
    return n * 10
  })
  t.same(out, [50, 10, 40, 20, 30, 0, 60])
  t.equal(most, 3)
})

t.test('an empty list and a rejection', async (t) => {
  t.same(await mapLimit([], 4, async () => 1), [])
  await t.rejects(
    mapLimit([1, 2, 3], 2, async (n) => {
      if (n === 2) throw new Error('two')
      return n
    }),
    /two/,
  )
})
