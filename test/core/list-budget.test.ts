import t from 'tap'
import { definePlugin, ListOf, Type, withJsonText } from '../../core/plugin-api.js'
import { auth, build, owner } from '../helper.js'

/**
 * Every list page is written within the answer's byte budget by the core, whatever the route: a page
 * holds fewer items than `limit` when the next one would pass the budget, `meta.total` stays true,
 * the first item always goes out, and a client lowers the budget with X-Answer-Budget.
 */
const Item = Type.Object({ id: Type.Integer(), text: Type.String() })
const Kept = Type.Object({ id: Type.Integer(), text: Type.String(), kept: Type.Boolean() })
const BUDGET = 65536

const items = (n: number, size: number) => Array.from({ length: n }, (_, id) => ({ id, text: 'x'.repeat(size) }))

const plugin = definePlugin({ name: 'pages', version: '1.0.0', apiVersion: '^1.5.0' }, async (app, api) => {
  const write = api.serializer(Kept)
  app.get('/big', { schema: { response: { 200: ListOf(Item) } } }, async () => ({ items: items(10, 20_000), total: 10 }))
  app.get('/huge', { schema: { response: { 200: ListOf(Item) } } }, async () => ({ items: items(3, 200_000), total: 3 }))
  app.get('/first-large', { schema: { response: { 200: ListOf(Item) } } }, async () => ({
    items: [{ id: 0, text: 'x'.repeat(100_000) }, ...items(3, 10)],
    total: 4,
  }))
  app.get('/small', { schema: { response: { 200: ListOf(Item) } } }, async () => ({ items: items(5, 10), total: 5 }))
  app.get('/kept', { schema: { response: { 200: ListOf(Kept) } } }, async () => {
    const kept = items(10, 20_000).map((i) => ({ ...i, kept: true }))
    return { items: kept.map((i) => withJsonText(i, write(i))), total: 10 }
  })
  app.get('/escaped', { schema: { response: { 200: ListOf(Item) } } }, async () => ({
    // Six bytes on the wire for each character: the cut counts what is written, not the characters.
    items: Array.from({ length: 10 }, (_, id) => ({ id, text: '\u0001'.repeat(5_000) })),
    total: 10,
  }))
  app.get('/budget', async (request) => ({ bytes: request.answerBudget }))
  // Past the size a page is written whole at, it is streamed: the same bytes.
  app.get('/streamed', { schema: { response: { 200: ListOf(Item) } } }, async () => ({ items: items(150, 10_000), total: 151 }))
  app.get('/streamed-escaped', { schema: { response: { 200: ListOf(Item) } } }, async () => ({
    items: Array.from({ length: 50 }, (_, id) => ({ id, text: `"é\u0001\n${'y'.repeat(6_000)}` })),
    total: 50,
  }))
})

t.test('a list page is cut before the item that would pass the budget; total stays true', async (t) => {
  const app = await build(t, { plugins: [plugin], env: { HEARTH_ANSWER_BUDGET: String(BUDGET) } })
  const o = await owner(app)
  const get = (path: string, headers: Record<string, string> = {}) =>
    app.inject({ url: `/api/v1/pages${path}`, headers: auth(o.token, headers) })

  for (const path of ['/big', '/kept', '/escaped']) {
    const res = await get(path)
    const body = res.json() as { data: Array<{ id: number }>; meta: { total: number; limit: number; offset: number } }
    t.ok(Buffer.byteLength(res.body) <= BUDGET, `${path}: ${res.body.length} bytes within ${BUDGET}`)
    t.equal(body.meta.total, 10, `${path}: total stays the true total`)
    t.ok(body.data.length >= 1 && body.data.length < 10, `${path}: ${body.data.length} of 10 items`)
    t.same(
      body.data.map((i) => i.id),
      [...Array(body.data.length).keys()],
      `${path}: the first items, in order`,
    )
  }
  t.equal((await get('/kept')).json().data[0].kept, true, 'a field of the declared schema is written')

  const huge = await get('/huge')
  t.equal(huge.json().data.length, 1, 'one item larger than the budget still goes out alone')
  t.equal(huge.json().meta.total, 3)
  t.equal((await get('/first-large')).json().data.length, 1, 'nothing follows a first item that passed the budget alone')

  t.equal((await get('/small')).body, JSON.stringify({ data: items(5, 10), meta: { total: 5, limit: 5, offset: 0 }, tier: 'free' }))

  const lowered = await get('/big', { 'x-answer-budget': '30000' })
  t.equal(lowered.json().data.length, 1, 'X-Answer-Budget lowers the budget')
  t.ok(lowered.body.length <= 30000)
  t.equal((await get('/big', { 'x-answer-budget': '999999999' })).json().data.length, 3, 'and never raises it')
  t.equal((await get('/budget', { 'x-answer-budget': '10' })).json().data.bytes, 4096, 'a budget below 4 KiB is taken as 4 KiB')
  t.equal((await get('/budget', { 'x-answer-budget': 'lots' })).json().data.bytes, BUDGET, 'a value that is not a number is ignored')
})

t.test('a large page is streamed: the same bytes, chunked, within the same budget', async (t) => {
  const app = await build(t, { plugins: [plugin], env: { HEARTH_ANSWER_BUDGET: String(16 * BUDGET) } })
  const o = await owner(app)
  const get = (path: string, headers: Record<string, string> = {}) =>
    app.inject({ url: `/api/v1/pages${path}`, headers: auth(o.token, headers) })

  const whole = await get('/streamed')
  t.equal(whole.statusCode, 200)
  t.equal(whole.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(whole.headers['transfer-encoding'], 'chunked', 'streamed, without Content-Length')
  t.notOk(whole.headers['content-length'])
  const page = JSON.parse(whole.body) as { data: Array<{ id: number }>; meta: { total: number } }
  t.ok(page.data.length > 1 && page.data.length < 150, `${page.data.length} of 150 items within the budget`)
  t.equal(
    whole.body,
    JSON.stringify({ data: items(page.data.length, 10_000), meta: { total: 151, limit: 150, offset: 0 }, tier: 'free' }),
    'the bytes a page written whole would have',
  )
  t.ok(Buffer.byteLength(whole.body) <= 16 * BUDGET)

  const escaped = await get('/streamed-escaped')
  t.equal(escaped.headers['transfer-encoding'], 'chunked')
  const items50 = Array.from({ length: 50 }, (_, id) => ({ id, text: `"é\u0001\n${'y'.repeat(6_000)}` }))
  t.equal(
    escaped.body,
    JSON.stringify({ data: items50, meta: { total: 50, limit: 50, offset: 0 }, tier: 'free' }),
    'escapes and UTF-8 as JSON writes them',
  )

  const lowered = await get('/streamed', { 'x-answer-budget': '30000' })
  t.equal(lowered.json().data.length, 2, 'a lowered budget cuts a streamed page too')
  t.ok(lowered.body.length <= 30000)

  const small = await get('/small')
  t.equal(small.headers['content-length'], String(Buffer.byteLength(small.body)), 'a small page is written whole, with its length')
  t.notOk(small.headers['transfer-encoding'])
})
