import t from 'tap'
import { ByteBudget } from '../../lib/byte-budget.js'

t.test('a budget takes what fits and refuses what would pass its limit, taking nothing then', async (t) => {
  const budget = new ByteBudget(10)
  t.ok(budget.take(6))
  t.notOk(budget.take(5), 'six and five pass ten')
  t.equal(budget.spent, 6, 'a refused piece takes nothing')
  t.ok(budget.fits(4))
  t.ok(budget.take(4))
  t.equal(budget.remaining, 0)
  t.notOk(budget.take(1))
})
