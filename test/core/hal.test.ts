import t from 'tap'
import { createCache } from '../../core/cache.js'
import type { DriverModule } from '../../core/hal/driver.js'
import { build } from '../helper.js'

/** Test drivers implementing the public driver contract (a kind no built-in plugin uses). */
function gadget(name: string, priority: number, supported: () => boolean, log: string[]): DriverModule<{ name: string; dispose(): void }> {
  return {
    manifest: { name, kind: 'gadget', priority, capabilities: ['canBuzz'] },
    probe: async () => (supported() ? { supported: true } : { supported: false, reason: `${name} tool missing` }),
    create: async () => ({ name, dispose: () => void log.push(`dispose ${name}`) }),
  }
}

t.test('the registry picks the best supported driver and hot-swaps it', async (t) => {
  const app = await build(t)
  const hal = app.hearth.hal
  const log: string[] = []
  let advanced = false
  hal.register(gadget('basic', 10, () => true, log))
  hal.register(gadget('advanced', 20, () => advanced, log))
  app.hearth.events.on('driver.changed', async (e) => {
    log.push(`changed ${JSON.stringify(e.data)}`)
  })

  t.same(await hal.detect('gadget'), { previous: null, current: 'basic', changed: true })
  t.same(
    hal.drivers('gadget').map((d) => [d.name, d.supported, d.reason ?? null]),
    [
      ['advanced', false, 'advanced tool missing'],
      ['basic', true, null],
    ],
  )
  t.same(await hal.detect('gadget'), { previous: 'basic', current: 'basic', changed: false })

  // A request in flight on the old driver holds a lease: disposal waits for it.
  let release!: () => void
  const inFlight = hal.with<{ name: string; dispose(): void }, string>('gadget', (d) => new Promise((r) => (release = () => r(d.name))))
  advanced = true
  const swap = hal.detect('gadget')
  await new Promise((r) => setTimeout(r, 20))
  t.notOk(log.includes('dispose basic'), 'old driver not disposed while a request uses it')
  release()
  t.equal(await inFlight, 'basic', 'the in-flight request finished on the old driver')
  t.same(await swap, { previous: 'basic', current: 'advanced', changed: true })
  t.same(
    log,
    [
      'changed {"kind":"gadget","previous":null,"current":"basic"}',
      'changed {"kind":"gadget","previous":"basic","current":"advanced"}',
      'dispose basic',
    ],
    'listeners ran before the old driver was disposed',
  )
  t.ok(hal.has('gadget.canBuzz'))
  t.notOk(hal.has('gadget.canFly'))
  t.same(hal.capabilities('gadget'), { canBuzz: true })
})

t.test('TTL cache: expiry on an injected clock, shared cold computations, clear', async (t) => {
  let now = 0
  const cache = createCache<number>({ ttlMs: 1000, now: () => now })
  let computed = 0
  const slow = () => new Promise<number>((r) => setTimeout(() => r(++computed), 10))
  const [a, b] = await Promise.all([cache.getOrCompute('k', slow), cache.getOrCompute('k', slow)])
  t.same([a, b, computed], [1, 1, 1], 'concurrent callers share one computation')
  now = 999
  t.equal(await cache.getOrCompute('k', slow), 1, 'fresh before the TTL')
  now = 1000
  t.equal(await cache.getOrCompute('k', slow), 2, 'recomputed at the TTL')
  const pending = cache.getOrCompute('x', slow)
  cache.clear()
  await pending
  t.equal(cache.get('x'), undefined, 'a computation started before clear() does not repopulate')
})

t.test('scheduler jobs stop when the app closes', async (t) => {
  const app = await build(t)
  let runs = 0
  const job = app.hearth.scheduler.schedule('tick', '* * * * * *', () => {
    runs++
  })
  await job.runNow()
  t.equal(runs, 1)
  t.ok(job.nextRun())
  await app.close()
  const after = runs
  await new Promise((r) => setTimeout(r, 1200))
  t.equal(runs, after, 'no run after close')
})

t.test('a kind never detected is detected on its first use', async (t) => {
  const app = await build(t)
  const hal = app.hearth.hal
  let probes = 0
  hal.register({
    manifest: { name: 'lazy', kind: 'sprocket', priority: 1, capabilities: [] },
    probe: async () => {
      probes++
      return { supported: true }
    },
    create: async () => ({ spin: () => 'spun', dispose: () => undefined }),
  })
  t.equal(probes, 0, 'registering probes nothing')
  t.equal(await hal.with<{ spin(): string; dispose(): void }, string>('sprocket', async (d) => d.spin()), 'spun')
  await hal.with('sprocket', async () => undefined)
  t.equal(probes, 1, 'probed once, on first use')
})
