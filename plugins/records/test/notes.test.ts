import t from 'tap'
import { bench, recordEventsOf } from './records-app.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

t.test('POST /notes fills every default, derives the title and emits note.created', async (t) => {
  const { call, events, clock } = await bench(t)
  const res = await call('POST', '/notes', { content: '\n  \n## Groceries ##\nmilk' })
  t.equal(res.status, 201)
  const note = res.body.data
  t.match(note.id, UUID)
  t.match(note.owner_id, UUID)
  t.same(
    { ...note, id: 'x', owner_id: 'me' },
    {
      id: 'x',
      owner_id: 'me',
      title: 'Groceries',
      content: '\n  \n## Groceries ##\nmilk',
      content_format: 'markdown',
      tags: [],
      pinned: false,
      archived: false,
      custom_fields: null,
      source: 'local',
      created_at: new Date(clock.ms).toISOString(),
      updated_at: new Date(clock.ms).toISOString(),
      deleted_at: null,
      etag: '"1"',
    },
  )
  t.same(recordEventsOf(events), [['note.created', note.id]])
  t.same(events.at(-1)?.data, note, 'the event carries the record as the API returns it')
  t.equal(events.at(-1)?.userId !== null, true)

  const got = await call('GET', `/notes/${note.id}`)
  t.same(got.body.data, note, 'GET returns what POST answered')
})

t.test('title: first non-empty line without heading marks, at most 80 characters; explicit title kept', async (t) => {
  const { call } = await bench(t)
  const cases: Array<[Record<string, unknown>, string | null]> = [
    [{ content: 'Plain first line\nsecond' }, 'Plain first line'],
    [{ content: '# \n### Third level' }, 'Third level'],
    [{ content: `${'é'.repeat(100)}` }, 'é'.repeat(80)],
    [{ content: '   \n\t\n' }, null],
    [{ content: '' }, null],
    [{ content: '# x', title: 'Chosen' }, 'Chosen'],
    [{ content: '#hashtag line' }, '#hashtag line'],
  ]
  for (const [body, title] of cases) {
    const res = await call('POST', '/notes', body)
    t.equal(res.status, 201, JSON.stringify(body))
    t.equal(res.body.data.title, title, JSON.stringify(body))
  }
  const created = (await call('POST', '/notes', { content: 'old' })).body.data
  const patched = await call('PATCH', `/notes/${created.id}`, { content: '# New heading', title: null })
  t.equal(patched.body.data.title, 'New heading', 'title: null re-derives from the new content')
})

t.test('X-Svc-Source sets source; source is not a body field', async (t) => {
  const { call } = await bench(t)
  const res = await call('POST', '/notes', { content: 'from keep' }, { 'x-svc-source': 'google_keep' })
  t.equal(res.body.data.source, 'google_keep')
  const refused = await call('POST', '/notes', { content: 'x', source: 'forged' })
  t.equal(refused.status, 400)
  t.same(refused.body.error.details, { field: 'source', constraint: 'unknown' })
})

t.test('every body validation error names its field and constraint', async (t) => {
  const { call } = await bench(t)
  const id = (await call('POST', '/notes', { content: 'x' })).body.data.id
  const cases: Array<[string, string, unknown, { field: string; constraint: string }]> = [
    ['POST', '/notes', {}, { field: 'content', constraint: 'required' }],
    ['POST', '/notes', { content: 5 }, { field: 'content', constraint: 'type' }],
    ['POST', '/notes', { content: 'x', content_format: 'rtf' }, { field: 'content_format', constraint: 'enum' }],
    ['POST', '/notes', { content: 'x', tags: 'a' }, { field: 'tags', constraint: 'type' }],
    ['POST', '/notes', { content: 'x', tags: [1] }, { field: 'tags.0', constraint: 'type' }],
    ['POST', '/notes', { content: 'x', tags: [''] }, { field: 'tags.0', constraint: 'minLength' }],
    ['POST', '/notes', { content: 'x', pinned: 'true' }, { field: 'pinned', constraint: 'type' }],
    ['POST', '/notes', { content: 'x', archived: true }, { field: 'archived', constraint: 'unknown' }],
    ['POST', '/notes', { content: 'x', color: 'red' }, { field: 'color', constraint: 'unknown' }],
    ['POST', '/notes', { content: 'x', title: 'y'.repeat(501) }, { field: 'title', constraint: 'maxLength' }],
    ['PATCH', `/notes/${id}`, { archived: 'yes' }, { field: 'archived', constraint: 'type' }],
    ['PATCH', `/notes/${id}`, { id: 'other' }, { field: 'id', constraint: 'unknown' }],
    ['PATCH', `/notes/${id}`, { created_at: '2020-01-01T00:00:00Z' }, { field: 'created_at', constraint: 'unknown' }],
    ['PATCH', `/notes/${id}/custom`, ['a'], { field: '(root)', constraint: 'type' }],
    ['GET', '/notes/not-a-uuid', undefined, { field: 'id', constraint: 'format' }],
  ]
  for (const [method, path, payload, details] of cases) {
    const res = await call(method, path, payload)
    t.equal(res.status, 400, `${method} ${path} ${JSON.stringify(payload)}`)
    t.equal(res.body.error.code, 'VALIDATION_ERROR')
    t.same(res.body.error.details, details, `${method} ${path} ${JSON.stringify(payload)}`)
  }
})

t.test('every list-parameter error is INVALID_QUERY with field and constraint', async (t) => {
  const { call } = await bench(t)
  const cases: Array<[string, { field: string; constraint: string }]> = [
    ['limit=0', { field: 'limit', constraint: 'minimum' }],
    ['limit=201', { field: 'limit', constraint: 'maximum' }],
    ['limit=ten', { field: 'limit', constraint: 'type' }],
    ['offset=-1', { field: 'offset', constraint: 'minimum' }],
    ['sort=color', { field: 'sort', constraint: 'enum' }],
    ['sort=display_name', { field: 'sort', constraint: 'enum' }],
    ['order=up', { field: 'order', constraint: 'enum' }],
    ['pinned=maybe', { field: 'pinned', constraint: 'type' }],
    ['archived=2', { field: 'archived', constraint: 'type' }],
    ['include_deleted=yes', { field: 'include_deleted', constraint: 'type' }],
    ['only_deleted=x', { field: 'only_deleted', constraint: 'type' }],
    ['format=full', { field: 'format', constraint: 'enum' }],
    ['colour=red', { field: 'colour', constraint: 'unknown' }],
  ]
  for (const [qs, details] of cases) {
    const res = await call('GET', `/notes?${qs}`)
    t.equal(res.status, 400, qs)
    t.equal(res.body.error.code, 'INVALID_QUERY', qs)
    t.same(res.body.error.details, details, qs)
  }
  const ok = await call('GET', '/notes?limit=200&limit=200')
  t.equal(ok.status, 400, 'a repeated scalar parameter is refused, not silently picked')
})

t.test('list parameters alone and combined; archived notes hidden unless asked for', async (t) => {
  const { call, clock } = await bench(t)
  const make = async (body: Record<string, unknown>, source?: string) => {
    clock.advance(1000)
    return (await call('POST', '/notes', body, source ? { 'x-svc-source': source } : {})).body.data
  }
  const a = await make({ content: 'alpha', tags: ['work', 'urgent'], pinned: true })
  const b = await make({ content: 'bravo', tags: ['work'] })
  const c = await make({ content: 'charlie', tags: ['home', 'urgent'] }, 'google_keep')
  const d = await make({ content: 'delta', tags: ['work', 'urgent'] }, 'google_keep')
  clock.advance(1000)
  await call('POST', `/notes/${d.id}/archive`)
  const ids = async (qs: string) => {
    const res = await call('GET', `/notes?${qs}`)
    t.equal(res.status, 200, qs)
    t.equal(res.body.meta.total, res.body.data.length, `${qs}: total matches the page`)
    return res.body.data.map((n: { id: string }) => n.id)
  }
  t.same(await ids(''), [c.id, b.id, a.id], 'default: updated_at desc, archived left out')
  t.same(await ids('tag=work'), [b.id, a.id])
  t.same(await ids('tag=work&tag=urgent'), [a.id], 'repeated tag is AND')
  t.same(await ids('tag=urgent&tag=work&archived=true'), [d.id])
  t.same(await ids('tag=nothing'), [])
  t.same(await ids('pinned=true'), [a.id])
  t.same(await ids('pinned=false'), [c.id, b.id])
  t.same(await ids('archived=true'), [d.id])
  t.same(await ids('archived=false'), [c.id, b.id, a.id])
  t.same(await ids('source=google_keep'), [c.id])
  t.same(await ids('source=google_keep&archived=true'), [d.id])
  t.same(await ids('source=local&tag=urgent&pinned=true'), [a.id])
  t.same(await ids('search=bravo&tag=work'), [b.id])
  t.same(await ids('search=bravo&tag=home'), [])
})

t.test('every sort key in both orders, and paging totals', async (t) => {
  const { call, clock } = await bench(t)
  const created = []
  for (const title of ['banana', 'Apple', 'cherry', 'date', 'Elder']) {
    clock.advance(1000)
    created.push((await call('POST', '/notes', { content: 'x', title })).body.data)
  }
  // Touch the first one so updated_at order differs from created_at order.
  clock.advance(1000)
  await call('PATCH', `/notes/${created[0].id}`, { pinned: true })
  const titles = async (qs: string) => (await call('GET', `/notes?${qs}`)).body.data.map((n: { title: string }) => n.title)
  t.same(await titles('sort=created_at&order=asc'), ['banana', 'Apple', 'cherry', 'date', 'Elder'])
  t.same(await titles('sort=created_at'), ['Elder', 'date', 'cherry', 'Apple', 'banana'], 'order defaults to desc')
  t.same(await titles('sort=updated_at&order=desc'), ['banana', 'Elder', 'date', 'cherry', 'Apple'])
  t.same(await titles('sort=updated_at&order=asc'), ['Apple', 'cherry', 'date', 'Elder', 'banana'])
  t.same(await titles('sort=title&order=asc'), ['Apple', 'banana', 'cherry', 'date', 'Elder'], 'title sorts case-insensitively')
  t.same(await titles('sort=title&order=desc'), ['Elder', 'date', 'cherry', 'banana', 'Apple'])

  const page = await call('GET', '/notes?sort=title&order=asc&limit=2&offset=2')
  t.same(page.body.meta, { total: 5, limit: 2, offset: 2 })
  t.same(
    page.body.data.map((n: { title: string }) => n.title),
    ['cherry', 'date'],
  )
  t.equal(page.body.tier, 'free')
  const past = await call('GET', '/notes?limit=2&offset=10')
  t.same(past.body.meta, { total: 5, limit: 2, offset: 10 })
  t.same(past.body.data, [])
  const defaults = await call('GET', '/notes')
  t.same(defaults.body.meta, { total: 5, limit: 20, offset: 0 })
})

t.test('archive and unarchive: 200, note.updated on a change, no event when nothing changes', async (t) => {
  const { call, events, clock } = await bench(t)
  const note = (await call('POST', '/notes', { content: 'x' })).body.data
  clock.advance(5000)
  const archived = await call('POST', `/notes/${note.id}/archive`)
  t.equal(archived.status, 200)
  t.equal(archived.body.data.archived, true)
  t.equal(archived.body.data.updated_at, new Date(clock.ms).toISOString())
  t.same(events.at(-1)?.data, archived.body.data)
  const again = await call('POST', `/notes/${note.id}/archive`)
  t.equal(again.status, 200)
  const unarchived = await call('POST', `/notes/${note.id}/unarchive`)
  t.equal(unarchived.body.data.archived, false)
  t.same(recordEventsOf(events), [
    ['note.created', note.id],
    ['note.updated', note.id],
    ['note.updated', note.id],
  ])
  const patched = await call('PATCH', `/notes/${note.id}`, { archived: true })
  t.equal(patched.body.data.archived, true, 'PATCH archived works too')
  const missing = await call('POST', '/notes/00000000-0000-4000-8000-000000000000/archive')
  t.equal(missing.status, 404)
  t.equal(missing.body.error.code, 'NOT_FOUND')
})

t.test('format=compact keeps exactly id, title, snippet, tags, pinned, updated_at and drops empties', async (t) => {
  const { call } = await bench(t)
  const long = 'word '.repeat(100)
  const full = (await call('POST', '/notes', { content: long, tags: ['a'], pinned: true, custom_fields: { x: 1 } })).body.data
  const bare = (await call('POST', '/notes', { content: '' })).body.data
  const res = await call('GET', '/notes?format=compact&sort=created_at&order=asc')
  t.equal(res.status, 200)
  t.same(res.body.data[0], {
    id: full.id,
    title: full.title,
    snippet: long.slice(0, 160),
    tags: ['a'],
    pinned: true,
    updated_at: full.updated_at,
  })
  t.same(Object.keys(res.body.data[1]).sort(), ['id', 'pinned', 'updated_at'], 'null title, empty snippet and empty tags dropped')
  t.equal(res.body.data[1].id, bare.id)
  t.same(res.body.meta, { total: 2, limit: 20, offset: 0 })
})

t.test('tag filter is exact, also for tags holding quotes, backslashes, commas and non-ASCII', async (t) => {
  const { call } = await bench(t)
  const tags = ['say "hi"', 'back\\slash', 'a,b', 'café', '%_']
  const tagged = (await call('POST', '/notes', { content: 'x', tags })).body.data
  const near = (await call('POST', '/notes', { content: 'y', tags: ['say', 'hi', 'a', 'b', 'cafe', 'back', '%'] })).body.data
  for (const tag of tags) {
    const res = await call('GET', `/notes?tag=${encodeURIComponent(tag)}`)
    t.same(
      res.body.data.map((n: { id: string }) => n.id),
      [tagged.id],
      tag,
    )
  }
  t.same(
    (await call('GET', '/notes?tag=say')).body.data.map((n: { id: string }) => n.id),
    [near.id],
    'no partial match',
  )
  t.same((await call('POST', '/notes', { content: 'z', tags: ['dup', 'dup'] })).body.data.tags, ['dup'], 'tags are kept once')
})

t.test('totals and pages follow every write at once (both are cached between writes)', async (t) => {
  const { call, clock } = await bench(t)
  const total = async (qs = '') => (await call('GET', `/notes?limit=1${qs}`)).body.meta.total
  const a = (await call('POST', '/notes', { content: 'a' })).body.data
  await call('POST', '/notes', { content: 'b' })
  t.equal(await total(), 2)
  t.equal(await total(), 2, 'same answer from the cache')
  await call('POST', '/notes', { content: 'c' })
  t.equal(await total(), 3, 'create')
  const first = async () => (await call('GET', '/notes?limit=1')).body.data[0].content
  t.equal(await first(), 'c')
  t.equal(await first(), 'c', 'same page from the cache')
  clock.advance(1000)
  await call('PATCH', `/notes/${a.id}`, { pinned: true })
  t.equal(await first(), 'a', 'an update moves the note to the top at once')
  await call('POST', `/notes/${a.id}/archive`)
  t.equal(await total(), 2, 'archive')
  t.equal(await total('&archived=true'), 1)
  await call('POST', `/notes/${a.id}/unarchive`)
  await call('DELETE', `/notes/${a.id}`)
  t.equal(await total(), 2, 'soft delete')
  t.equal(await total('&only_deleted=true'), 1)
  await call('POST', `/notes/${a.id}/restore`)
  t.equal(await total(), 3, 'restore')
  await call('PATCH', `/notes/${a.id}`, { tags: ['x'] })
  t.equal(await total('&tag=x'), 1, 'patch')
  await call('DELETE', `/notes/${a.id}?permanent=true`)
  t.equal(await total(), 2, 'permanent delete')
  t.equal(await total('&tag=x'), 0)
})
