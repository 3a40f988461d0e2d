import fc from 'fast-check'
import t from 'tap'
import { bench, type Call } from './records-app.js'

/**
 * `after=<id>` (keyset paging, docs/api.md): following the last id of each page walks the same
 * sequence as offset paging, whatever the sort, ties and nulls; offset and page stay as they were.
 */

/** Every id of a listing, page by page, by offset or by the previous page's last id. */
async function walk(call: Call, path: string, limit: number, by: 'offset' | 'after'): Promise<string[]> {
  const out: string[] = []
  for (let guard = 0; guard < 200; guard++) {
    const sep = path.includes('?') ? '&' : '?'
    const cursor = by === 'offset' ? `offset=${out.length}` : out.length ? `after=${out[out.length - 1]}` : ''
    const res = await call('GET', `${path}${sep}limit=${limit}${cursor ? `&${cursor}` : ''}`)
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`)
    const ids = (res.body.data as Array<{ id: string }>).map((r) => r.id)
    out.push(...ids)
    if (ids.length < limit) return out
  }
  throw new Error('no end')
}

t.test('after pages like offset for every sort, order, tie and null', async (t) => {
  const { call, clock } = await bench(t)
  const titles = ['apple', 'Apple', 'banana', 'APPLE', 'cherry', 'Banana']
  const companies = [null, 'Acme', 'acme', null, 'Zeta', 'beta']
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ title: fc.nat(titles.length - 1), company: fc.nat(companies.length - 1), tick: fc.boolean() }), {
        minLength: 1,
        maxLength: 8,
      }),
      fc.integer({ min: 1, max: 4 }),
      async (adds, limit) => {
        for (const { title, company, tick } of adds) {
          // Equal timestamps unless the clock moves: ties on the sort value are broken by sequence.
          if (tick) clock.advance(1000)
          await call('POST', '/notes', { title: titles[title], content: 'x' })
          await call('POST', '/contacts', { display_name: titles[title], company: companies[company] })
        }
        const paths = [
          '/notes',
          '/notes?sort=title&order=asc',
          '/notes?sort=title&order=desc',
          '/notes?sort=created_at&order=asc',
          '/contacts',
          '/contacts?sort=company&order=asc',
          '/contacts?sort=company&order=desc',
          '/contacts?sort=updated_at&order=desc',
        ]
        for (const path of paths) {
          const [byOffset, byAfter] = [await walk(call, path, limit, 'offset'), await walk(call, path, limit, 'after')]
          if (JSON.stringify(byOffset) !== JSON.stringify(byAfter)) {
            t.same(byAfter, byOffset, `${path} limit ${limit}`)
            return false
          }
        }
        return true
      },
    ),
    { numRuns: 12, seed: 4 },
  )
  t.pass('after walked the same sequences as offset')
})

t.test('after with filters, offset on top of it, total of the whole list; refused where it has no meaning', async (t) => {
  const { call, asOther } = await bench(t)
  const ids: string[] = []
  for (let i = 0; i < 6; i++) ids.push((await call('POST', '/notes', { content: `word ${i}`, tags: i % 2 ? ['odd'] : [] })).body.data.id)
  const all = await walk(call, '/notes', 50, 'offset')
  const page = await call('GET', `/notes?after=${all[1]}&limit=2`)
  t.same(
    page.body.data.map((n: { id: string }) => n.id),
    all.slice(2, 4),
  )
  t.same(page.body.meta, { total: 6, limit: 2, offset: 0 }, 'total counts the whole list, not what follows')
  const skipped = await call('GET', `/notes?after=${all[1]}&offset=1&limit=2`)
  t.same(
    skipped.body.data.map((n: { id: string }) => n.id),
    all.slice(3, 5),
    'offset skips from the anchor',
  )
  const odd = await walk(call, '/notes?tag=odd', 1, 'after')
  t.same(odd, await walk(call, '/notes?tag=odd', 1, 'offset'))
  t.equal(odd.length, 3)

  // The anchor may have left the list since (trashed): its position still holds.
  await call('DELETE', `/notes/${all[2]}`)
  t.same(
    (await call('GET', `/notes?after=${all[2]}&limit=1`)).body.data.map((n: { id: string }) => n.id),
    [all[3]],
  )

  const sorted = await call('GET', `/notes?search=word&sort=updated_at&after=${all[0]}`)
  t.equal(sorted.status, 200, 'a search with an explicit sort pages by keyset')
  t.same(
    sorted.body.data.map((n: { id: string }) => n.id),
    [all[1], ...all.slice(3)],
  )

  const refused = async (path: string, constraint: string) => {
    const res = await call('GET', path)
    t.equal(res.status, 400, path)
    t.match(res.body.error, { code: 'INVALID_QUERY', details: { field: 'after', constraint } }, path)
  }
  await refused(`/notes?search=word&after=${all[0]}`, 'unsupported')
  await refused(`/events?from=2026-11-01T00:00:00Z&after=${all[0]}`, 'unsupported')
  await refused('/notes?after=00000000-0000-4000-8000-000000000000', 'not_found')
  await refused(`/contacts?after=${all[0]}`, 'not_found')
  const other = await asOther()
  const res = await other('GET', `/notes?after=${all[0]}`)
  t.equal(res.status, 400, "another user's record is no anchor")
  t.equal((await call('GET', '/notes?after=')).status, 400, 'empty after')
})
