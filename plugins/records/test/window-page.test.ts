import t from 'tap'
import { bench } from './records-app.js'

/**
 * A page of an events list in a time window, deep in the list: plain events come from SQL and a
 * repeating series' occurrences are merged in. Only the page's own records are read whole, not
 * the offset + limit before it, and every page is the slice of the whole merged list.
 */
const lookups = (text: string) =>
  ['hit', 'miss'].reduce(
    (n, result) =>
      n + Number(new RegExp(`hearth_record_cache_requests_total\\{resource="events",result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0),
    0,
  )

t.test('a deep page of a windowed events list reads its own records, and pages tile the whole list', async (t) => {
  const b = await bench(t)
  const PLAIN = 300
  for (let i = 0; i < PLAIN; i++) {
    const day = String(1 + (i % 28)).padStart(2, '0')
    const hour = String(i % 24).padStart(2, '0')
    const created = await b.call('POST', '/events', { title: `plain ${i}`, start_at: `2027-01-${day}T${hour}:07:00Z`, timezone: 'UTC' })
    t.equal(created.status, 201, `event ${i}`, { bail: true })
  }
  await b.call('POST', '/events', {
    title: 'daily',
    start_at: '2027-01-01T12:00:00Z',
    timezone: 'UTC',
    recurrence: { freq: 'DAILY' },
  })
  const window = 'from=2027-01-01T00:00:00Z&to=2027-01-31T23:59:59Z'
  // The whole list, worked out here: by start, ties in the order the events were made.
  const expected = [
    ...Array.from({ length: PLAIN }, (_, i) => ({
      at: `2027-01-${String(1 + (i % 28)).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:07:00.000Z`,
      n: i,
      title: `plain ${i}`,
    })),
    ...Array.from({ length: 31 }, (_, d) => ({ at: `2027-01-${String(d + 1).padStart(2, '0')}T12:00:00.000Z`, n: -1, title: 'daily' })),
  ]
    .sort((x, y) => (x.at < y.at ? -1 : x.at > y.at ? 1 : x.n - y.n))
    .map((e) => `${e.title} ${e.at}`)
  const shown = (e: { title: string; start_at: string }) => `${e.title} ${new Date(e.start_at).toISOString()}`
  const first = await b.call('GET', `/events?${window}&limit=7`)
  t.equal(first.body.meta.total, PLAIN + 31, 'the plain events and 31 occurrences')
  const all = expected
  const tiled: string[] = []
  for (let offset = 0; offset < all.length; offset += 7) {
    const page = await b.call('GET', `/events?${window}&limit=7&offset=${offset}`)
    tiled.push(...page.body.data.map(shown))
  }
  t.same(tiled, all, 'pages of 7 at every offset tile the whole list, occurrences in place')

  const metrics = async () => (await b.app.inject({ url: '/metrics' })).body
  const before = lookups(await metrics())
  const deep = await b.call('GET', `/events?${window}&limit=10&offset=300`)
  t.same(deep.body.data.map(shown), all.slice(300, 310))
  const read = lookups(await metrics()) - before
  t.ok(read <= 10 + 1, `the page at offset 300 read ${read} records (its 10 and the series), not the 310 before it`)
})
