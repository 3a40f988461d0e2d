import fc from 'fast-check'
import t from 'tap'
import { addUser, auth } from '../../../test/helper.js'
import { bench } from './records-app.js'

/**
 * List pages are built within the answer's byte budget (HEARTH_ANSWER_BUDGET, here its smallest
 * value): whatever the sizes of the records and the query (limit, offset, sort, order, search,
 * format), an answer holding more than one item fits the budget, `meta.total` is the true total,
 * and a client continuing from `offset + data.length` sees every record exactly once.
 */
const BUDGET = 65536
const WORDS = ['apple', 'berry', 'cherry']

t.test('every list page fits the byte budget; paging by offset + data.length covers every record once', async (t) => {
  const b = await bench(t, { env: { HEARTH_ANSWER_BUDGET: String(BUDGET) } })
  const user = await addUser(b.app, b.token)
  const created: string[] = []
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          size: fc.oneof(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 10_000, max: 70_000 })),
          // A control character is six bytes in JSON: the cut counts bytes written, not characters.
          escaped: fc.boolean(),
          word: fc.constantFrom(...WORDS),
        }),
        { minLength: 0, maxLength: 12 },
      ),
      fc.record({
        limit: fc.integer({ min: 1, max: 200 }),
        offset: fc.integer({ min: 0, max: 14 }),
        sort: fc.constantFrom(undefined, 'created_at', 'updated_at', 'title'),
        order: fc.constantFrom(undefined, 'asc', 'desc'),
        search: fc.constantFrom(undefined, ...WORDS),
        format: fc.constantFrom(undefined, 'compact'),
      }),
      async (notes, q) => {
        const call = (method: string, url: string, payload?: object) =>
          b.app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers: auth(user.token), payload })
        // Each run starts from an empty list (a user per run would meet the registration throttle).
        for (const id of created.splice(0)) await call('DELETE', `/notes/${id}?permanent=true`)
        const ids = new Map<string, string>()
        for (const [i, n] of notes.entries()) {
          const filler = (n.escaped ? '\u0001' : 'z').repeat(n.size)
          const res = await call('POST', '/notes', { title: `note ${i}`, content: `${n.word} ${filler}` })
          if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body.slice(0, 200)}`)
          ids.set(res.json().data.id, n.word)
          created.push(res.json().data.id)
        }
        const expected = [...ids].filter(([, word]) => q.search === undefined || word === q.search).map(([id]) => id)
        const params = (offset: number) =>
          new URLSearchParams(
            Object.entries({ ...q, offset }).flatMap(([k, v]): Array<[string, string]> => (v === undefined ? [] : [[k, String(v)]])),
          )
        const seen: string[] = []
        let offset = q.offset
        for (let pages = 0; pages < 50; pages++) {
          const res = await call('GET', `/notes?${params(offset)}`)
          const body = res.json() as { data: Array<{ id: string }>; meta: { total: number } }
          if (res.statusCode !== 200) throw new Error(`list: ${res.statusCode} ${res.body.slice(0, 200)}`)
          if (body.data.length > 1 && Buffer.byteLength(res.body) > BUDGET) throw new Error(`${res.body.length} bytes past ${BUDGET}`)
          if (body.meta.total !== expected.length) throw new Error(`total ${body.meta.total}, expected ${expected.length}`)
          if (body.data.length > q.limit) throw new Error(`${body.data.length} items past limit ${q.limit}`)
          if (body.data.length === 0) break
          seen.push(...body.data.map((i) => i.id))
          offset += body.data.length
        }
        const wanted = q.offset === 0 ? expected : null
        if (new Set(seen).size !== seen.length) throw new Error(`an item seen twice: ${seen.join(' ')}`)
        if (wanted && (seen.length !== wanted.length || !wanted.every((id) => seen.includes(id))))
          throw new Error(`saw ${seen.length} of ${wanted.length}`)
        if (seen.length !== Math.max(0, expected.length - q.offset))
          throw new Error(`saw ${seen.length} from offset ${q.offset} of ${expected.length}`)
      },
    ),
    { numRuns: 30 },
  )
  t.pass('30 random listings held')
})
