import t from 'tap'
import { auth } from '../../../test/helper.js'
import { bench } from './records-app.js'

/**
 * Optimistic concurrency: every record answer carries its ETag (`etag` field;
 * `ETag` header on single-record answers), every write changes it, and If-Match on PATCH,
 * PATCH /custom, archive/unarchive, DELETE and restore answers 412 PRECONDITION_FAILED when stale.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers of several shapes
type Answer = { status: number; etag: string | undefined; body: any }

async function etagBench(t: Parameters<typeof bench>[0], env?: Record<string, string>) {
  const b = await bench(t, { env })
  const send = async (method: string, path: string, payload?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await b.app.inject({
      method: method as 'GET',
      url: `/api/v1${path}`,
      headers: auth(b.token, headers),
      ...(payload === undefined ? {} : { payload: payload as object }),
    })
    return { status: res.statusCode, etag: res.headers.etag as string | undefined, body: res.body ? res.json() : null }
  }
  return { ...b, send }
}

const version = (etag: string) => Number(etag.slice(1, -1))

t.test('every single-record answer sends its ETag; every kind of write changes it', async (t) => {
  const { send, events } = await etagBench(t)
  const created = await send('POST', '/notes', { content: 'first' })
  t.equal(created.status, 201)
  t.equal(created.etag, '"1"', 'a new record is at version 1')
  t.equal(created.body.data.etag, created.etag, 'the field and the header agree')
  const id = created.body.data.id
  const got = await send('GET', `/notes/${id}`)
  t.equal(got.etag, '"1"')

  const seen = [created.etag]
  for (const [method, path, payload] of [
    ['PATCH', `/notes/${id}`, { pinned: true }],
    ['PATCH', `/notes/${id}/custom`, { store: 'corner' }],
    ['POST', `/notes/${id}/archive`],
    ['POST', `/notes/${id}/unarchive`],
    ['DELETE', `/notes/${id}`],
    ['POST', `/notes/${id}/restore`],
  ] as const) {
    const res = await send(method, path, payload)
    t.equal(res.status, 200, `${method} ${path}`)
    t.equal(res.body.data.etag, res.etag, `${method} ${path}: header and field agree`)
    t.ok(version(res.etag as string) > version(seen.at(-1) as string), `${method} ${path} raised the version to ${res.etag}`)
    t.equal((await send('GET', `/notes/${id}?include_deleted=true`)).etag, res.etag, 'a read after it answers the same tag')
    seen.push(res.etag)
  }
  t.equal(new Set(seen).size, seen.length, 'all different')
  t.equal(events.at(-1)?.type, 'note.restored')
  t.equal((events.at(-1)?.data as { etag: string }).etag, seen.at(-1), 'the change event carries the record with its tag')

  const unchanged = await send('POST', `/notes/${id}/unarchive`)
  t.equal(unchanged.etag, seen.at(-1), 'a no-op (already unarchived) keeps the tag')
  const gone = await send('DELETE', `/notes/${id}?permanent=true`)
  t.equal(gone.status, 200)
  t.equal(gone.etag, undefined, 'a permanent delete answers { id } and no tag')
})

t.test('two clients PATCH from the same version: one wins, the other gets 412', async (t) => {
  const { send } = await etagBench(t)
  for (const resource of ['notes', 'contacts', 'events', 'tasks']) {
    const body = {
      notes: { content: 'shared' },
      contacts: { first_name: 'Ada' },
      events: { title: 'Meet', start_at: '2026-12-01T10:00:00Z' },
      tasks: { title: 'Share' },
    }
    const created = await send('POST', `/${resource}`, body[resource as keyof typeof body])
    const id = created.body.data.id
    const read = (await send('GET', `/${resource}/${id}`)).etag as string
    const patch = { notes: { content: 'mine' }, contacts: { company: 'Mine' }, events: { location: 'Mine' }, tasks: { priority: 1 } }[
      resource
    ]
    const other = {
      notes: { content: 'theirs' },
      contacts: { company: 'Theirs' },
      events: { location: 'Theirs' },
      tasks: { priority: 9 },
    }[resource]
    const [a, b] = await Promise.all([
      send('PATCH', `/${resource}/${id}`, patch, { 'if-match': read }),
      send('PATCH', `/${resource}/${id}`, other, { 'if-match': read }),
    ])
    t.same([a.status, b.status].sort(), [200, 412], `${resource}: one 200, one 412`)
    const [winner, loser] = a.status === 200 ? [a, b] : [b, a]
    t.equal(loser.body.error.code, 'PRECONDITION_FAILED')
    t.same(loser.body.error.details, { etag: winner.etag }, 'the 412 names the current tag')
    const now = await send('GET', `/${resource}/${id}`)
    t.same(now.body.data, winner.body.data, `${resource}: the winner's write stands, the loser's never happened`)
    const retry = await send('PATCH', `/${resource}/${id}`, other, { 'if-match': now.etag as string })
    t.equal(retry.status, 200, 'the loser re-reads and retries with the new tag')
  }
})

t.test('each conditional route honours If-Match: stale → 412 and nothing written; current, *, or in a list → written', async (t) => {
  const { send } = await etagBench(t)
  // [method, path, body, what puts the note in the state the route changes (archived, in the trash)]
  const routes: Array<[string, (id: string) => string, unknown, [string, (id: string) => string]?]> = [
    ['PATCH', (id) => `/notes/${id}`, { pinned: true }],
    ['PATCH', (id) => `/notes/${id}/custom`, { k: 'v' }],
    ['POST', (id) => `/notes/${id}/archive`, undefined],
    ['POST', (id) => `/notes/${id}/unarchive`, undefined, ['POST', (id) => `/notes/${id}/archive`]],
    ['DELETE', (id) => `/notes/${id}`, undefined],
    ['POST', (id) => `/notes/${id}/restore`, undefined, ['DELETE', (id) => `/notes/${id}`]],
    ['DELETE', (id) => `/notes/${id}?permanent=true`, undefined],
  ]
  for (const [method, path, payload, prepare] of routes) {
    for (const [label, header, ok] of [
      ['stale', (etag: string) => `"${version(etag) - 1}"`, false],
      ['weak', (etag: string) => `W/${etag}`, false],
      ['garbage', () => 'nonsense', false],
      ['current', (etag: string) => etag, true],
      ['any', () => '*', true],
      ['in a list', (etag: string) => `"999", ${etag}`, true],
    ] as const) {
      const note = (await send('POST', '/notes', { content: 'x' })).body.data
      await send('PATCH', `/notes/${note.id}`, { content: 'y' }) // version 2: a stale tag exists
      if (prepare) t.equal((await send(prepare[0], prepare[1](note.id))).status, 200)
      const before = (await send('GET', `/notes/${note.id}?include_deleted=true`)) as Answer
      const res = await send(method, path(note.id), payload, { 'if-match': header(before.etag as string) })
      const what = `${method} ${path(':id')} with ${label} If-Match`
      if (ok) {
        t.equal(res.status, 200, what)
        const after = await send('GET', `/notes/${note.id}?include_deleted=true`)
        t.ok(after.status === 404 || after.etag !== before.etag, `${what}: written`)
      } else {
        t.equal(res.status, 412, what)
        t.equal(res.body.error.code, 'PRECONDITION_FAILED', what)
        const after = await send('GET', `/notes/${note.id}?include_deleted=true`)
        t.same(after.body.data, before.body.data, `${what}: nothing written`)
      }
    }
  }
  const missing = await send('PATCH', '/notes/00000000-0000-4000-8000-000000000000', { pinned: true }, { 'if-match': '*' })
  t.equal(missing.status, 404, 'an unknown record stays a 404, even with If-Match: *')
})

t.test('recurring events: scope changes honour If-Match on the series and move its tag, overrides erased included', async (t) => {
  const { send } = await etagBench(t)
  const series = (
    await send('POST', '/events', {
      title: 'Lesson',
      start_at: '2026-03-02T14:00:00.000Z',
      end_at: '2026-03-02T15:00:00.000Z',
      recurrence: { freq: 'WEEKLY', count: 5 },
    })
  ).body.data
  const second = '2026-03-09T14:00:00.000Z'
  const stale = await send('PATCH', `/events/${series.id}?scope=this&occurrence_start=${second}`, { location: 'B' }, { 'if-match': '"7"' })
  t.equal(stale.status, 412, 'PATCH scope=this with a stale series tag')
  const override = await send(
    'PATCH',
    `/events/${series.id}?scope=this&occurrence_start=${second}`,
    { location: 'B' },
    { 'if-match': series.etag },
  )
  t.equal(override.status, 200)
  t.equal(override.etag, '"1"', 'the override is a record of its own, at version 1')

  const before = (await send('GET', `/events/${series.id}`)).etag as string
  const erased = await send('DELETE', `/events/${override.body.data.id}?permanent=true`)
  t.equal(erased.status, 200)
  const afterErase = (await send('GET', `/events/${series.id}`)).etag as string
  t.not(afterErase, before, 'erasing an override for good adds an exdate to the series: its tag moves')

  const third = '2026-03-16T14:00:00.000Z'
  t.equal(
    (await send('DELETE', `/events/${series.id}?scope=this&occurrence_start=${third}`, undefined, { 'if-match': before })).status,
    412,
  )
  const cut = await send('DELETE', `/events/${series.id}?scope=this&occurrence_start=${third}`, undefined, { 'if-match': afterErase })
  t.equal(cut.status, 200)
  t.ok(version(cut.etag as string) > version(afterErase), 'DELETE scope=this raised the series version')
})

t.test('list items carry etag (full format); compact items leave it out', async (t) => {
  const { send } = await etagBench(t)
  const note = (await send('POST', '/notes', { content: 'listed' })).body.data
  const patched = await send('PATCH', `/notes/${note.id}`, { pinned: true })
  const list = await send('GET', '/notes')
  t.equal(list.body.data[0].etag, patched.etag, 'a list item has the tag a GET answers')
  t.equal(list.etag, undefined, 'a list answer has no ETag header')
  const compact = await send('GET', '/notes?format=compact')
  t.notOk('etag' in compact.body.data[0], 'compact keeps to the spec fields')
  const events = await send('POST', '/events', {
    title: 'Daily',
    start_at: '2026-03-02T09:00:00Z',
    recurrence: { freq: 'DAILY', count: 3 },
  })
  const window = await send('GET', '/events?from=2026-03-01&to=2026-03-10')
  t.same(
    window.body.data.map((i: { etag: string }) => i.etag),
    [events.etag, events.etag, events.etag],
    'occurrences carry their series tag',
  )
})

t.test('the OpenAPI document shows If-Match, the ETag header, the etag field and 412', async (t) => {
  const { app } = await etagBench(t)
  const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
  const patch = doc.paths['/api/v1/notes/{id}'].patch
  const headers = patch.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name)
  t.same(headers.sort(), ['if-match', 'x-svc-user-id'], 'If-Match beside the user header')
  t.ok(patch.responses['412'], '412 documented')
  t.ok(patch.responses['200'].headers?.ETag, 'ETag response header documented')
  t.ok(doc.paths['/api/v1/notes/{id}'].get.responses['200'].headers?.ETag)
  const record = patch.responses['200'].content['application/json'].schema.properties.data
  t.ok(record.properties.etag, 'etag in the record schema')
})
