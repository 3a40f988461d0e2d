import fc from 'fast-check'
import t from 'tap'
import { auth, build, owner } from '../../../test/helper.js'

/**
 * Whatever a batch holds (how many messages, which, how large the records they write or read, how
 * long their ids), its answer stays within the answer budget (here its smallest value, 64 KiB) and
 * at most 16 of its calls run: 17 or more are refused before any runs.
 */
const BUDGET = 65536

const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.nat(), fc.string({ maxLength: 300 })), method: fc.constant('ping') }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.nat(),
    method: fc.constant('tools/call'),
    params: fc.record({
      name: fc.constant('create_note'),
      arguments: fc.record({ content: fc.integer({ min: 1, max: 40_000 }).map((n) => `budget ${'y'.repeat(n)}`) }),
    }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.nat(),
    method: fc.constant('tools/call'),
    params: fc.record({
      name: fc.constant('search'),
      arguments: fc.record({
        query: fc.constant('budget'),
        limit: fc.integer({ min: 1, max: 200 }),
        format: fc.constantFrom('compact', 'full'),
      }),
    }),
  }),
  fc.record({ nope: fc.nat() }),
)

t.test('a batch answer never passes the answer budget and runs at most 16 calls', async (t) => {
  const app = await build(t, { env: { HEARTH_ANSWER_BUDGET: String(BUDGET) } })
  const o = await owner(app)
  const count = async () =>
    (await app.inject({ url: '/api/v1/notes?limit=1&search=budget', headers: auth(o.token) })).json().meta.total as number
  await fc.assert(
    fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 24 }), async (batch) => {
      const before = await count()
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/mcp',
        headers: { ...auth(o.token), 'content-type': 'application/json', 'mcp-protocol-version': '2025-03-26' },
        payload: JSON.stringify(batch),
      })
      const created = (await count()) - before
      const writes = batch.filter((m) => (m as { params?: { name?: string } }).params?.name === 'create_note').length
      if (batch.length > 16) {
        if (res.statusCode !== 400 || created !== 0)
          throw new Error(`a batch of ${batch.length}: ${res.statusCode}, ${created} notes created`)
        return
      }
      if (Buffer.byteLength(res.body) > BUDGET) throw new Error(`${res.body.length} bytes past ${BUDGET}`)
      if (created > Math.min(writes, 16)) throw new Error(`${created} notes created by ${writes} calls`)
    }),
    { numRuns: 40 },
  )
  t.pass('40 random batches held')
})
