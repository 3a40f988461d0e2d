import fc from 'fast-check'
import t from 'tap'
import { jsonBytesAtLeast } from '../../lib/json-size.js'

t.test('the bound never passes the JSON text, and is exact for plain ASCII without escapes', async (t) => {
  t.equal(
    jsonBytesAtLeast({ a: 'bc', n: 12, ok: true, no: null, list: [1, 'x'] }),
    JSON.stringify({ a: 'bc', n: 12, ok: true, no: null, list: [1, 'x'] }).length,
  )
  t.equal(jsonBytesAtLeast([]), 2)
  t.equal(jsonBytesAtLeast({}), 2)
  fc.assert(
    fc.property(fc.jsonValue(), (value) => jsonBytesAtLeast(value) <= Buffer.byteLength(JSON.stringify(value))),
    { numRuns: 500 },
  )
})

t.test('deep nesting is counted to a depth and no further, without running out of stack', async (t) => {
  let deep: unknown = 'x'
  for (let i = 0; i < 100_000; i++) deep = [deep]
  t.ok(jsonBytesAtLeast(deep) > 0)
})
