import t from 'tap'
import { build } from '../helper.js'

/**
 * Each component check of /health races a 2 s timeout. The timers must end with the request: left to run
 * they kept ~4 timers with their promises alive per request for 2 s, promoted to the old generation
 * under a monitoring poll or a load test.
 */
t.test('a /health whose checks answer leaves no timeout timer behind', async (t) => {
  const app = await build(t)
  const pending = new Set<unknown>()
  const realSet = globalThis.setTimeout
  const realClear = globalThis.clearTimeout
  globalThis.setTimeout = ((fn: () => void, ms?: number) => {
    const timer = realSet(() => {
      pending.delete(timer)
      fn()
    }, ms)
    if (ms === 2000) pending.add(timer)
    return timer
  }) as typeof setTimeout
  globalThis.clearTimeout = ((timer: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(timer)
    realClear(timer)
  }) as typeof clearTimeout
  t.teardown(() => {
    globalThis.setTimeout = realSet
    globalThis.clearTimeout = realClear
  })
  for (let i = 0; i < 20; i++) {
    const res = await app.inject({ method: 'GET', url: '/api/v1/health' })
    t.equal(res.statusCode, 200)
  }
  globalThis.setTimeout = realSet
  globalThis.clearTimeout = realClear
  t.equal(pending.size, 0, 'every check timer cleared once its check answered')
})
