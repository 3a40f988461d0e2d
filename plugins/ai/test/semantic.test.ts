import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { upload } from '../../records/test/records-app.js'
import { addUser, apiKey, auth, build, owner, type TestApp, type TestContext } from '../../../test/helper.js'
import { type ProviderStub, startProviderStub, waitForIndex } from './provider-stub.js'

/**
 * Semantic search through the HTTP API against a local provider with a
 * bag-of-words embedder, so the nearest record is known: ranking, both vector paths (sqlite-vec and
 * the plain scan) answering the same, the index following create/update/delete without blocking a
 * write (provider hanging, then back: retried), hybrid mode, full-text fallback, 422 and tier gates.
 */

const NOTES = [
  { title: 'Bicycle repair', content: 'Fix the flat tyre on the bicycle, replace the chain and the brake pads.' },
  { title: 'Sourdough bread', content: 'Feed the starter, mix flour water and salt, bake the bread hot.' },
  { title: 'Tax return', content: 'File the tax return with the receipts and invoices before May.' },
  { title: 'Garden', content: 'Plant tomatoes and basil, water the garden every evening.' },
]
const CONTACTS = [
  { display_name: 'Marta Ruiz', company: 'Wheelworks bicycle shop', job_title: 'bicycle mechanic' },
  { display_name: 'Paul Baker', company: 'Corner bakery', job_title: 'baker' },
]
const EVENTS = [
  {
    title: 'Bread baking class',
    location: 'Corner bakery',
    description: 'Learn sourdough bread with a starter',
    start_at: '2026-12-01T18:00:00Z',
  },
  { title: 'Dentist', location: 'Main street', description: 'Yearly check-up', start_at: '2026-12-03T09:00:00Z' },
]

const envFor = (stub: ProviderStub, extra: Record<string, string> = {}) => ({
  HEARTH_TIER: 'pro',
  HEARTH_AI_COMPATIBLE_URL: stub.url,
  HEARTH_AI_INDEX_DELAY_MS: '10',
  HEARTH_AI_RETRY_DELAY_MS: '50',
  // Generous: a loaded machine must not turn a slow answer into a fallback.
  HEARTH_AI_TIMEOUT_MS: '10000',
  ...extra,
})

async function setup(t: TestContext, stub: ProviderStub, extra: Record<string, string> = {}, dataDir?: string) {
  const app = await build(t, {
    dataDir,
    env: {
      ...envFor(stub, extra),
    },
  })
  const o = await owner(app)
  const headers = auth(o.token)
  for (const [resource, list] of [
    ['notes', NOTES],
    ['contacts', CONTACTS],
    ['events', EVENTS],
  ] as const) {
    for (const body of list) {
      const res = await app.inject({ method: 'POST', url: `/api/v1/${resource}`, headers, payload: body })
      if (res.statusCode !== 201) throw new Error(res.body)
    }
  }
  return { app, o, headers }
}

const settings = { provider: 'openai-compatible', model: 'chat', embedding_model: 'bow-384', api_key: 'sk-semantic-test-key-000000000000' }

/** A pro instance with the corpus, AI settings and a built index. */
async function indexed(t: TestContext, env: Record<string, string> = {}) {
  const stub = await startProviderStub(t)
  const { app, headers } = await setup(t, stub, env)
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers, payload: settings })
  await app.inject({ method: 'POST', url: '/api/v1/ai/reindex', headers })
  await waitForIndex(app, headers)
  return { stub, app, headers }
}

async function search(app: TestApp, headers: Record<string, string>, query: string) {
  const res = await app.inject({ method: 'GET', url: `/api/v1/search/semantic?${query}`, headers })
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`)
  return res.json() as {
    data: Array<{ type: string; id: string; score: number; record: Record<string, unknown> }>
    meta: Record<string, unknown>
    tier: string
  }
}

const titleOf = (h: { record: Record<string, unknown> }) => String(h.record.title ?? h.record.display_name)

t.test('ranks by meaning; sqlite-vec and the plain scan answer the same', async (t) => {
  const stub = await startProviderStub(t)
  const answers: Record<string, unknown[]> = {}
  for (const mode of ['auto', 'scan'] as const) {
    const { app, headers } = await setup(t, stub, { HEARTH_AI_VECTOR_SEARCH: mode })

    const none = await app.inject({ method: 'GET', url: '/api/v1/search/semantic?q=bread', headers })
    t.equal(none.statusCode, 422, 'no AI settings')
    t.equal(none.json().error.code, 'UNPROCESSABLE')
    t.match(none.json().error.message, /No AI settings/)
    t.equal((await app.inject({ method: 'POST', url: '/api/v1/ai/reindex', headers })).statusCode, 422)

    t.equal((await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers, payload: settings })).statusCode, 200)
    const started = await app.inject({ method: 'POST', url: '/api/v1/ai/reindex', headers })
    t.equal(started.statusCode, 202)
    t.equal(started.json().data.status, 'running')
    const state = await waitForIndex(app, headers)
    t.match(state, { status: 'ready', total: 8, done: 8, failed: 0, indexed: 8, model: 'bow-384', dimensions: 384 })
    t.equal(state.vector_search, mode === 'auto' ? 'sqlite-vec' : 'scan', 'sqlite-vec loads here')

    const bike = await search(app, headers, 'q=bicycle+chain+brake&limit=3')
    t.equal(bike.tier, 'pro')
    t.match(bike.meta, { total: 8, limit: 3, offset: 0, mode: 'semantic', fallback: false })
    t.equal(bike.data.length, 3)
    t.match(bike.data[0], { type: 'notes', record: { title: 'Bicycle repair' } })
    t.ok(bike.data[0].score > bike.data[1].score && bike.data[0].score <= 1)
    t.same(
      Object.keys(bike.data[0].record).sort(),
      Object.keys(bike.data[0].record)
        .filter((k) => k !== 'content')
        .sort(),
      'compact record',
    )

    const people = await search(app, headers, 'q=bicycle+mechanic&types=contacts')
    t.same(people.data.map(titleOf), ['Marta Ruiz', 'Paul Baker'])
    t.ok(people.data.every((h) => h.type === 'contacts'))

    const bread = await search(app, headers, 'q=sourdough+bread+starter&types=notes,events&limit=2')
    t.same(bread.data.map(titleOf).sort(), ['Bread baking class', 'Sourdough bread'])
    const paged = await search(app, headers, 'q=sourdough+bread+starter&types=notes,events&limit=1&offset=1')
    t.equal(paged.data[0].id, bread.data[1].id, 'offset pages the same ranking')

    answers[mode] = (await search(app, headers, 'q=bread+bicycle+garden+tax&limit=20')).data.map((h) => [h.type, titleOf(h), h.score])
  }
  t.equal((answers.auto as unknown[]).length, 8)
  t.same(answers.auto, answers.scan, 'same ranking and scores on both paths')
  const bad = stub.calls.filter((c) => c.authorization !== `Bearer ${settings.api_key}`)
  t.equal(bad.length, 0, 'every provider call carried the key')
})

t.test('vec0 tables follow writes made without sqlite-vec: rebuilt at the next start with it', async (t) => {
  const stub = await startProviderStub(t)
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-ai-vec-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await setup(t, stub, {}, dataDir)
  await first.app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: first.headers, payload: settings })
  await first.app.inject({ method: 'POST', url: '/api/v1/ai/reindex', headers: first.headers })
  t.equal((await waitForIndex(first.app, first.headers)).vector_search, 'sqlite-vec')
  await first.app.close()

  const headers = first.headers
  const scan = await build(t, { dataDir, env: envFor(stub, { HEARTH_AI_VECTOR_SEARCH: 'scan' }) })
  const kayak = await scan.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers,
    payload: { title: 'Kayak trip', content: 'paddles river' },
  })
  const garden = (await search(scan, headers, 'q=garden+tomatoes&limit=1')).data[0]
  await scan.inject({ method: 'DELETE', url: `/api/v1/notes/${garden.id}`, headers })
  await waitForIndex(scan, headers)
  const expected = (await search(scan, headers, 'q=kayak+garden+bread&limit=20')).data.map((h) => [h.id, h.score])
  await scan.close()

  const again = await build(t, { dataDir, env: envFor(stub) })
  t.equal((await waitForIndex(again, headers)).vector_search, 'sqlite-vec')
  const found = (await search(again, headers, 'q=kayak+garden+bread&limit=20')).data
  t.same(
    found.map((h) => [h.id, h.score]),
    expected,
    'the same answer as the scan over the same embeddings',
  )
  t.ok(
    found.some((h) => h.id === kayak.json().data.id),
    'the note written in scan mode is in the rebuilt vec0 table',
  )
  t.notOk(
    found.some((h) => h.id === garden.id),
    'the deleted note is not in the rebuilt vec0 table',
  )
})

t.test('the index follows creates, updates and deletes, retrying while the provider is out', async (t) => {
  const { stub, app, headers } = await indexed(t)

  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers,
    payload: { title: 'Kayak trip', content: 'Paddles, river map, dry bag' },
  })
  t.equal(created.statusCode, 201)
  const id = created.json().data.id
  await waitForIndex(app, headers)
  const kayak = await search(app, headers, 'q=kayak+paddles+river&limit=1')
  t.equal(kayak.data[0].id, id, 'a new note is found')

  // The provider holds the embeddings call unanswered: the write is answered and committed all the
  // same; the change stays queued, and is retried once the held call fails and the provider is back.
  stub.state = 'hang'
  const calls = stub.calls.length
  const patched = await app.inject({
    method: 'PATCH',
    url: `/api/v1/notes/${id}`,
    headers,
    payload: { title: 'Mountain hike', content: 'Boots, poles, summit lunch' },
  })
  t.equal(patched.statusCode, 200)
  for (let i = 0; i < 500 && stub.calls.length === calls; i++) await new Promise((r) => setTimeout(r, 10))
  t.equal(stub.calls.length, calls + 1, 'the provider holds the call')
  t.equal(
    (await app.inject({ method: 'GET', url: `/api/v1/notes/${id}`, headers })).json().data.title,
    'Mountain hike',
    'the write is committed',
  )
  const waiting = (await app.inject({ method: 'GET', url: '/api/v1/ai/index', headers })).json().data
  t.equal(waiting.pending, 1, 'the change waits for a retry')
  stub.server.closeAllConnections()
  stub.state = 'up'
  await waitForIndex(app, headers)
  const hike = await search(app, headers, 'q=hike+boots+summit&limit=1')
  t.equal(hike.data[0].id, id, 'the update reached the index')
  t.not((await search(app, headers, 'q=kayak+paddles+river&limit=1')).data[0].id, id, 'the old text is gone')

  const deleted = await app.inject({ method: 'DELETE', url: `/api/v1/notes/${id}`, headers })
  t.equal(deleted.statusCode, 200)
  await waitForIndex(app, headers)
  const after = await search(app, headers, 'q=hike+boots+summit&limit=20')
  t.notOk(
    after.data.some((h) => h.id === id),
    'a deleted note leaves the index',
  )
  t.equal(after.meta.total, 8)
  await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/restore`, headers })
  await waitForIndex(app, headers)
  t.equal((await search(app, headers, 'q=hike+boots+summit&limit=1')).data[0].id, id, 'a restored note comes back')

  // An import emits one contact.imported event: its records are indexed too.
  const vcard = [
    'BEGIN:VCARD',
    'VERSION:4.0',
    'FN:Olga Violin',
    'ORG:City orchestra',
    'NOTE:violin lessons on saturdays',
    'END:VCARD',
    '',
  ].join('\r\n')
  const file = upload('people.vcf', vcard, 'text/vcard')
  const imported = await app.inject({
    method: 'POST',
    url: '/api/v1/contacts/import',
    payload: file.payload,
    headers: { ...headers, ...file.headers },
  })
  t.equal(imported.statusCode, 200, imported.body)
  await waitForIndex(app, headers)
  t.match((await search(app, headers, 'q=violin+lessons+orchestra&limit=1')).data[0], {
    type: 'contacts',
    record: { display_name: 'Olga Violin' },
  })

  // Agent API keys reach semantic search, like the records routes.
  const agent = await apiKey(app, headers.authorization.slice(7), { scope: 'agent' })
  const viaKey = await app.inject({ method: 'GET', url: '/api/v1/search/semantic?q=violin', headers: auth(agent) })
  t.equal(viaKey.statusCode, 200)

  // A new embedding model rebuilds the index.
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers, payload: { ...settings, embedding_model: 'bow-384-v2' } })
  const rebuilt = await waitForIndex(app, headers)
  t.match(rebuilt, { status: 'ready', model: 'bow-384-v2', indexed: 10 })

  // Settings changing while a reindex waits on the provider: that reindex gives way to one with the new model.
  stub.state = 'hang'
  const held = stub.calls.length
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers, payload: { ...settings, embedding_model: 'bow-384-v3' } })
  for (let i = 0; i < 500 && stub.calls.length === held; i++) await new Promise((r) => setTimeout(r, 10))
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/ai/index', headers })).json().data.status, 'running', 'the v3 reindex waits')
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers, payload: { ...settings, embedding_model: 'bow-384-v4' } })
  stub.server.closeAllConnections()
  stub.state = 'up'
  t.match(await waitForIndex(app, headers), { status: 'ready', model: 'bow-384-v4', indexed: 10 }, 'rebuilt for the new model')
})

t.test('hybrid blends with the full-text rank; a provider outage falls back to full text, never a 500', async (t) => {
  const { stub, app, headers } = await indexed(t, { HEARTH_AI_TIMEOUT_MS: '2000' })

  const hybrid = await search(app, headers, 'q=tax+receipts&mode=hybrid&limit=3')
  t.match(hybrid.meta, { mode: 'hybrid', fallback: false })
  t.match(hybrid.data[0], { type: 'notes', record: { title: 'Tax return' } })
  t.ok(hybrid.data[0].score > 0.5, 'cosine and full-text rank both count')

  for (const state of ['error', 'hang'] as const) {
    stub.state = state
    const res = await app.inject({ method: 'GET', url: '/api/v1/search/semantic?q=bread&limit=5', headers })
    t.equal(res.statusCode, 200, state)
    const body = res.json()
    t.match(body.meta, { mode: 'fulltext', fallback: true, note: /could not embed the query/ })
    t.same(body.data.map(titleOf).sort(), ['Bread baking class', 'Sourdough bread'])
    stub.server.closeAllConnections()
  }
  stub.state = 'up'
  // Provider not even listening.
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: headers, payload: settings })
  stub.server.close()
  stub.server.closeAllConnections()
  const refused = await search(app, headers, 'q=garden')
  t.match(refused.meta, { fallback: true, note: /unreachable/ })
  t.equal(titleOf(refused.data[0]), 'Garden')
})

t.test('a free user on a pro instance gets 403 on every semantic route, and no 500 on bad queries', async (t) => {
  const stub = await startProviderStub(t)
  const { app, o, headers } = await setup(t, stub)
  const u = await addUser(app, o.token)
  const patched = await app.inject({ method: 'PATCH', url: `/api/v1/admin/users/${u.userId}`, headers, payload: { tier: 'free' } })
  t.equal(patched.statusCode, 200, patched.body)
  for (const [method, url] of [
    ['POST', '/api/v1/ai/reindex'],
    ['GET', '/api/v1/ai/index'],
    ['GET', '/api/v1/search/semantic?q=x'],
  ] as const) {
    const res = await app.inject({ method, url, headers: auth(u.token) })
    t.equal(res.statusCode, 403, url)
    t.equal(res.json().error.code, 'FEATURE_NOT_AVAILABLE')
  }
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/ai/settings', headers: auth(u.token) })).statusCode, 200, 'settings stay open')
  for (const q of ['', 'q=', 'q=x&types=photos', 'q=x&limit=0', 'q=x&mode=magic']) {
    const res = await app.inject({ method: 'GET', url: `/api/v1/search/semantic?${q}`, headers })
    t.equal(res.statusCode, 400, q)
    t.equal(res.json().error.code, 'INVALID_QUERY')
  }
})

t.test('semantic search holds what is shared with you, and stops holding it when unshared', async (t) => {
  const { app, headers } = await indexed(t)
  const owned = (await app.inject({ method: 'GET', url: '/api/v1/notes?search=bicycle', headers })).json().data[0]
  const kid = await addUser(app, headers.authorization.slice('Bearer '.length))
  const kidHeaders = auth(kid.token)
  await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: kidHeaders, payload: settings })
  await app.inject({ method: 'POST', url: '/api/v1/ai/reindex', headers: kidHeaders })
  await waitForIndex(app, kidHeaders)
  t.equal((await search(app, kidHeaders, 'q=bicycle+chain+tyre&limit=5')).data.length, 0, 'nothing of the owner before sharing')

  const share = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/shares',
      headers,
      payload: { kind: 'note', note_id: owned.id, with: kid.userId, access: 'read' },
    })
  ).json().data
  await new Promise((r) => setTimeout(r, 50))
  await waitForIndex(app, kidHeaders)
  const found = await search(app, kidHeaders, 'q=bicycle+chain+tyre&limit=5')
  t.same(
    found.data.map((h) => h.id),
    [owned.id],
    'the shared note, and only it',
  )
  await app.inject({ method: 'PATCH', url: `/api/v1/notes/${owned.id}`, headers, payload: { content: 'Kayak paddles and a river map' } })
  await new Promise((r) => setTimeout(r, 50))
  await waitForIndex(app, kidHeaders)
  t.equal(
    (await search(app, kidHeaders, 'q=kayak+paddles+river&limit=1')).data[0]?.id,
    owned.id,
    "the owner's edit reached the sharee's index",
  )

  await app.inject({ method: 'DELETE', url: `/api/v1/shares/${share.id}`, headers })
  t.equal((await search(app, kidHeaders, 'q=kayak+paddles+river&limit=5')).data.length, 0, 'unshared: gone from the results at once')
})

t.test('tasks are searched by meaning, scoped by owner and by the task lists shared', async (t) => {
  const { app, headers } = await indexed(t)
  const make = async (h: Record<string, string>, body: object) => {
    const res = await app.inject({ method: 'POST', url: '/api/v1/tasks', headers: h, payload: body })
    if (res.statusCode !== 201) throw new Error(res.body)
    return res.json().data as { id: string }
  }
  const groceries = await make(headers, { title: 'Buy flour and yeast', description: 'for the sourdough bread', list_name: 'groceries' })
  const bike = await make(headers, { title: 'Oil the bicycle chain', list_name: 'chores', tags: ['garage'] })
  await new Promise((r) => setTimeout(r, 50))
  await waitForIndex(app, headers)

  const mine = await search(app, headers, 'q=oil+bicycle+chain&types=tasks&limit=5')
  t.equal(mine.data[0]?.id, bike.id, "the owner's task, first")
  t.ok(
    mine.data.every((h) => h.type === 'tasks'),
    'only tasks',
  )
  t.match(mine.data[0]?.record, { title: 'Oil the bicycle chain' }, 'compact task')
  const all = await search(app, headers, 'q=flour+yeast+sourdough+bread&limit=3')
  t.ok(
    all.data.some((h) => h.type === 'tasks' && h.id === groceries.id),
    'tasks are among all types by default',
  )

  // One member gets the groceries list; another gets nothing.
  const token = headers.authorization.slice('Bearer '.length)
  const sharee = await addUser(app, token, { email: 'sharee@example.test' })
  const stranger = await addUser(app, token, { email: 'stranger@example.test' })
  for (const m of [sharee, stranger]) {
    const h = auth(m.token)
    await app.inject({ method: 'PUT', url: '/api/v1/ai/settings', headers: h, payload: settings })
    await app.inject({ method: 'POST', url: '/api/v1/ai/reindex', headers: h })
    await waitForIndex(app, h)
  }
  const share = await app.inject({
    method: 'POST',
    url: '/api/v1/shares',
    headers,
    payload: { kind: 'tasklist', name: 'groceries', with: sharee.userId, access: 'read' },
  })
  t.equal(share.statusCode, 201, share.body)
  await new Promise((r) => setTimeout(r, 50))
  await waitForIndex(app, auth(sharee.token))
  const shared = await search(app, auth(sharee.token), 'q=flour+yeast+bicycle+chain&types=tasks&limit=10')
  t.same(
    shared.data.map((h) => h.id),
    [groceries.id],
    "the sharee finds the shared list's task, not the other list's",
  )
  const none = await search(app, auth(stranger.token), 'q=flour+yeast+bicycle+chain&types=tasks&limit=10')
  t.same(none.data, [], 'nobody else finds them')

  // The owner's new task in the shared list reaches the sharee's index.
  const more = await make(headers, { title: 'Buy oat milk', list_name: 'groceries' })
  await new Promise((r) => setTimeout(r, 50))
  await waitForIndex(app, auth(sharee.token))
  t.equal((await search(app, auth(sharee.token), 'q=oat+milk&types=tasks&limit=1')).data[0]?.id, more.id)

  const bad = await app.inject({ method: 'GET', url: '/api/v1/search/semantic?q=x&types=tasks,chores', headers })
  t.equal(bad.statusCode, 400, 'an unknown type is refused')
})
