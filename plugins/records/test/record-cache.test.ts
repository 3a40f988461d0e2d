import fc from 'fast-check'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { bench } from './records-app.js'

/**
 * The record cache (engine/record-cache.ts) answers reads with JSON texts it keeps; these tests
 * hold it to what the routes' own serializers write. Two apps on one data folder: `cached` with the
 * cache (the default), `plain` with HEARTH_RECORD_CACHE_MB=0, so every answer of `plain` is read
 * from SQLite and written by the response schema's serializer.
 */
async function pair(t: Parameters<typeof bench>[0]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-record-cache-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const cached = await bench(t, { dataDir })
  const plain = await bench(t, { dataDir, existing: true, env: { HEARTH_RECORD_CACHE_MB: '0' } })
  return { cached, plain }
}

// Text with what JSON escapes (quotes, backslashes, control characters), non-ASCII and astral characters.
const text = (max: number) =>
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('"', '\\', '\n', '\t', '\u0000', '\u001f', '\u2028', 'é', '😀'),
      fc.string({ minLength: 1, maxLength: 1, unit: 'grapheme' }),
    ),
    maxLength: max,
  })
const custom = fc.option(
  fc.dictionary(
    fc.string({ minLength: 1, maxLength: 12 }).filter((k) => k !== '__proto__'),
    fc.oneof(text(20), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null)),
    { maxKeys: 4 },
  ),
  { nil: undefined },
)
const tags = fc.array(
  fc.string({ minLength: 1, maxLength: 16 }).filter((s) => s.trim() === s && s !== ''),
  { maxLength: 3 },
)
const instant = fc
  .integer({ min: Date.parse('2020-01-01T00:00:00Z'), max: Date.parse('2030-01-01T00:00:00Z') })
  .map((ms) => new Date(ms).toISOString())

const bodies = {
  notes: fc.record({ title: text(40), content: text(200), tags, pinned: fc.boolean(), custom_fields: custom }),
  contacts: fc.record({
    display_name: text(40).filter((s) => s.trim() !== ''),
    company: fc.option(text(30), { nil: undefined }),
    emails: fc.array(fc.record({ address: fc.emailAddress(), label: fc.constantFrom('home', 'work') }), { maxLength: 2 }),
    tags,
    custom_fields: custom,
  }),
  events: fc.record({
    title: text(40).filter((s) => s.trim() !== ''),
    description: fc.option(text(100), { nil: undefined }),
    start_at: instant,
    all_day: fc.constant(false),
    location: fc.option(text(30), { nil: undefined }),
    custom_fields: custom,
  }),
  tasks: fc.record({
    title: text(40).filter((s) => s.trim() !== ''),
    description: fc.option(text(100), { nil: undefined }),
    due_at: fc.option(instant, { nil: undefined }),
    priority: fc.integer({ min: 0, max: 9 }),
    tags,
    custom_fields: custom,
  }),
}

const strip = <T extends Record<string, unknown>>(body: T) =>
  Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>

t.test('a record answered from the cache is byte for byte what the route serializes from SQLite', async (t) => {
  const { cached, plain } = await pair(t)
  for (const [resource, arbitrary] of Object.entries(bodies)) {
    let compared = 0
    await fc.assert(
      fc.asyncProperty(arbitrary, async (body) => {
        const created = await cached.call('POST', `/${resource}`, strip(body))
        if (created.status !== 201) return // a body the API refuses (e.g. a title of blanks) is not this test's subject
        const id = created.body.data.id
        const path = `/api/v1/${resource}/${id}`
        const headers = { authorization: `Bearer ${cached.token}` }
        // A record is kept on its second read; the third is answered from the cache.
        await cached.app.inject({ url: path, headers })
        await cached.app.inject({ url: path, headers })
        const hot = await cached.app.inject({ url: path, headers })
        const fresh = await plain.app.inject({ url: path, headers: { authorization: `Bearer ${plain.token}` } })
        compared++
        return hot.statusCode === 200 && hot.body === fresh.body && hot.headers.etag === fresh.headers.etag
      }),
      { numRuns: 40 },
    )
    const list = (app: typeof cached.app, token: string) =>
      app.inject({ url: `/api/v1/${resource}?limit=100`, headers: { authorization: `Bearer ${token}` } })
    await list(cached.app, cached.token)
    await list(cached.app, cached.token)
    const hot = await list(cached.app, cached.token)
    const fresh = await list(plain.app, plain.token)
    t.equal(hot.body, fresh.body, `${resource}: a list page from the cache equals the one read from SQLite`)
    t.ok(compared > 0, `${resource}: ${compared} records compared one by one`)
  }
  // The hot answers above came from the cache, the plain app's from SQLite.
  const metrics = async (app: typeof cached.app) => (await app.inject({ url: '/metrics' })).body
  const hits = (text: string) => Number(/hearth_record_cache_requests_total\{resource="notes",result="hit"\} (\d+)/.exec(text)?.[1] ?? 0)
  t.ok(hits(await metrics(cached.app)) >= 40, 'the cached app answered from its cache')
  t.notMatch(await metrics(plain.app), /hearth_record_cache_requests_total\{/, 'HEARTH_RECORD_CACHE_MB=0: no cache at all')
})

t.test('reads after every kind of write show the write, through the cache', async (t) => {
  const { cached: b } = await pair(t)
  const note = (await b.call('POST', '/notes', { content: 'one' })).body.data
  const read = async () => (await b.call('GET', `/notes/${note.id}?include_deleted=true`)).body.data
  // Before each write the record is in the cache (kept on its second read, answered on the third).
  const cachedRead = async () => {
    await read()
    await read()
    return read()
  }
  t.equal((await cachedRead()).content, 'one')
  await b.call('PATCH', `/notes/${note.id}`, { content: 'two' })
  t.equal((await read()).content, 'two', 'PATCH')
  await cachedRead()
  await b.call('PATCH', `/notes/${note.id}/custom`, { colour: 'blue' })
  t.same((await read()).custom_fields, { colour: 'blue' }, 'PATCH /custom')
  await cachedRead()
  await b.call('POST', `/notes/${note.id}/archive`)
  t.equal((await read()).archived, true, 'archive')
  await cachedRead()
  await b.call('DELETE', `/notes/${note.id}`)
  t.ok((await read()).deleted_at, 'to the trash')
  await cachedRead()
  await b.call('POST', `/notes/${note.id}/restore`)
  t.equal((await read()).deleted_at, null, 'restored')
  await cachedRead()
  await b.call('GET', '/notes')
  await b.call('GET', '/notes')
  await b.call('DELETE', `/notes/${note.id}?permanent=true`)
  t.equal((await b.call('GET', `/notes/${note.id}?include_deleted=true`)).status, 404, 'erased')
  const listed = (await b.call('GET', '/notes')).body
  t.equal(listed.meta.total, 0, 'and gone from the list')
  t.same(listed.data, [])
})

t.test('a scan over many records does not churn the cache: a record is kept on its second read', async (t) => {
  const { cached: b } = await pair(t)
  const ids: string[] = []
  for (let i = 0; i < 5; i++) ids.push((await b.call('POST', '/notes', { content: `n${i}` })).body.data.id)
  const hits = async () =>
    Number(
      /hearth_record_cache_requests_total\{resource="notes",result="hit"\} (\d+)/.exec(
        (await b.app.inject({ url: '/metrics' })).body,
      )?.[1] ?? 0,
    )
  const before = await hits()
  for (const id of ids) await b.call('GET', `/notes/${id}`)
  for (const id of ids) await b.call('GET', `/notes/${id}`)
  t.equal(await hits(), before, 'first and second reads are read from the table')
  for (const id of ids) await b.call('GET', `/notes/${id}`)
  t.equal(await hits(), before + 5, 'the third is answered from the cache')
})

t.test('a commit by another connection reaches the cached reads', async (t) => {
  const { cached, plain } = await pair(t)
  const note = (await cached.call('POST', '/notes', { content: 'before' })).body.data
  await cached.call('GET', `/notes/${note.id}`)
  await cached.call('GET', '/notes')
  t.equal((await cached.call('GET', `/notes/${note.id}`)).body.data.content, 'before')
  t.equal((await cached.call('GET', '/notes')).body.data[0].content, 'before')
  // `plain` is another SQLite connection to the same file, as the CLI or a second process would be.
  await plain.call('PATCH', `/notes/${note.id}`, { content: 'after' })
  await new Promise((resolve) => setTimeout(resolve, 5)) // the cache looks at data_version at most once a millisecond
  t.equal((await cached.call('GET', `/notes/${note.id}`)).body.data.content, 'after', 'by id')
  t.equal((await cached.call('GET', '/notes')).body.data[0].content, 'after', 'in a list')
})

t.test('a household reading the same notes in turn is answered from the cache when they fit its budget', async (t) => {
  // 600 notes of ~1 KiB of Markdown take ~0.8 MiB of heap: with HEARTH_RECORD_CACHE_MB=1 they fit in the
  // one budget every resource shares (a third of it each, counted at three bytes a character, held 77).
  const b = await bench(t, { env: { HEARTH_RECORD_CACHE_MB: '1' } })
  const paragraph = 'The boiler was serviced on Tuesday; the engineer left the report in the drawer. '.repeat(13)
  const ids: string[] = []
  for (let i = 0; i < 600; i++) ids.push((await b.call('POST', '/notes', { title: `note ${i}`, content: paragraph })).body.data.id)
  const headers = { authorization: `Bearer ${b.token}` }
  const hits = async () =>
    Number(
      /hearth_record_cache_requests_total\{resource="notes",result="hit"\} (\d+)/.exec(
        (await b.app.inject({ url: '/metrics' })).body,
      )?.[1] ?? 0,
    )
  for (let pass = 0; pass < 2; pass++) for (const id of ids) await b.app.inject({ url: `/api/v1/notes/${id}`, headers })
  const before = await hits()
  for (const id of ids) await b.app.inject({ url: `/api/v1/notes/${id}`, headers })
  t.equal((await hits()) - before, ids.length, 'the third pass is answered from the cache, every note of it')

  // Least recently used goes first: notes read again stay while new ones come in.
  const hot = ids.slice(0, 50)
  for (let i = 0; i < 600; i++) {
    const created = (await b.call('POST', '/notes', { title: `later ${i}`, content: paragraph })).body.data.id as string
    for (let r = 0; r < 2; r++) await b.app.inject({ url: `/api/v1/notes/${created}`, headers })
    if (i % 20 === 0) for (const id of hot) await b.app.inject({ url: `/api/v1/notes/${id}`, headers })
  }
  const beforeHot = await hits()
  for (const id of hot) await b.app.inject({ url: `/api/v1/notes/${id}`, headers })
  t.equal((await hits()) - beforeHot, hot.length, 'the notes read all along are still kept')
})
