import t from 'tap'
import { mergeFirst } from '../../lib/sorted-merge.js'

/** What the merge stands for: every entry, concatenated list after list, sorted (stably) by value then tie. */
function sortedWhole(lists: number[][], ties: number[], descending: boolean): Array<[number, number]> {
  const sign = descending ? -1 : 1
  const all = lists.flatMap((list, l) => list.map((_, i): [number, number] => [l, i]))
  return all.sort(([la, ia], [lb, ib]) => {
    const [x, y] = [lists[la]?.[ia] as number, lists[lb]?.[ib] as number]
    if (x !== y) return sign * (x - y)
    return sign * ((ties[la] as number) - (ties[lb] as number))
  })
}

const pairs = (m: ReturnType<typeof mergeFirst>) => Array.from(m.list, (l, k): [number, number] => [l, m.index[k] as number])

t.test('the first n of the merge are the first n of the whole sorted, ascending and descending', async (t) => {
  let seed = 7
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  for (let round = 0; round < 200; round++) {
    // Few distinct values and ties: equal values across lists, equal ties across lists.
    const lists = Array.from({ length: 1 + random(8) }, () => {
      const values = new Set(Array.from({ length: random(6) }, () => random(20)))
      return [...values].sort((a, b) => a - b)
    })
    const ties = lists.map(() => random(3))
    for (const descending of [false, true]) {
      const whole = sortedWhole(lists, ties, descending)
      const n = random(whole.length + 3)
      t.same(pairs(mergeFirst(lists, ties, n, descending)), whole.slice(0, n), `round ${round} ${descending ? 'desc' : 'asc'} n=${n}`)
    }
  }
})

t.test('typed arrays, empty lists and n past the total', async (t) => {
  const lists = [new Float64Array([1, 4, 9]), new Float64Array([]), new Float64Array([2, 4])]
  t.same(pairs(mergeFirst(lists, [0, 0, 0], 100)), [
    [0, 0],
    [2, 0],
    [0, 1],
    [2, 1],
    [0, 2],
  ])
  t.same(pairs(mergeFirst(lists, [5, 0, 1], 2, true)), [
    [0, 2],
    [0, 1],
  ])
  t.same(pairs(mergeFirst([], [], 5)), [])
  t.same(pairs(mergeFirst(lists, [0, 0, 0], 0)), [])
})
