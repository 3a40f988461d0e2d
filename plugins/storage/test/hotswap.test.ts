import t from 'tap'
import { auth, build, owner } from '../../../test/helper.js'
import { DF, LSBLK, MDSTAT, nasRunner } from './machine.js'

const base = '/api/v1/hal/storage'

t.test('detect-provider swaps drivers under running traffic: no request fails, in-flight ones finish on the old driver', async (t) => {
  const runner = nasRunner()
  // Slow tools, so that many requests are in flight inside a driver when the swap happens.
  for (const key of [LSBLK, DF]) runner.table[key] = { ...(runner.table[key] as object), delayMs: 40 }
  const app = await build(t, { run: runner })
  const { token } = await owner(app)
  // The start-up detection runs once the server listens (inject does not listen): settle it first, before md appears.
  t.equal((await app.inject({ method: 'GET', url: `${base}/capabilities`, headers: auth(token) })).json().data.provider, 'linux-basic')

  interface Outcome {
    url: string
    status: number
    provider?: string
    startedAt: number
    endedAt: number
  }
  const outcomes: Outcome[] = []
  let running = true
  const urls = ['/status', '/disks', '/volumes', '/pools', '/capabilities', '/data-usage']
  const client = async (n: number) => {
    for (let i = 0; running; i++) {
      const url = urls[(n + i) % urls.length] as string
      const startedAt = performance.now()
      const r = await app.inject({ method: 'GET', url: `${base}${url}`, headers: auth(token) })
      outcomes.push({
        url,
        status: r.statusCode,
        provider: url === '/status' ? r.json().data?.provider : undefined,
        startedAt,
        endedAt: performance.now(),
      })
    }
  }
  const clients = Array.from({ length: 12 }, (_, n) => client(n))

  const swap = async (expected: string) => {
    await new Promise((r) => setTimeout(r, 150))
    const startedAt = performance.now()
    const r = await app.inject({ method: 'POST', url: `${base}/detect-provider`, headers: auth(token) })
    t.equal(r.statusCode, 200)
    t.equal(r.json().data.current, expected)
    return { startedAt, endedAt: performance.now() }
  }
  // md appears (mdadm wins); later mdadm is uninstalled (back to linux-basic). The
  // tools the old driver is using keep working meanwhile, as on a real box.
  runner.table[MDSTAT] = { stdout: 'Personalities : [raid1]\nunused devices: <none>\n' }
  const toMdadm = await swap('mdadm')
  delete runner.table['mdadm --version']
  const toBasic = await swap('linux-basic')
  await new Promise((r) => setTimeout(r, 150))
  running = false
  await Promise.all(clients)

  const failed = outcomes.filter((o) => o.status !== 200)
  t.same(failed, [], 'zero failed requests')
  t.ok(outcomes.length > 60, `${outcomes.length} requests served during two swaps`)
  const statuses = outcomes.filter((o) => o.url === '/status')
  const before = statuses.filter((o) => o.startedAt < toMdadm.startedAt)
  t.ok(
    before.every((o) => o.provider === 'linux-basic'),
    'requests begun before the swap answered by linux-basic',
  )
  const during = statuses.filter((o) => o.startedAt > toMdadm.endedAt && o.endedAt < toBasic.startedAt)
  t.ok(
    during.every((o) => o.provider === 'mdadm'),
    'requests between the swaps answered by mdadm',
  )
  const after = statuses.filter((o) => o.startedAt > toBasic.endedAt)
  t.ok(
    after.every((o) => o.provider === 'linux-basic'),
    'requests after the second swap answered by linux-basic',
  )
})

t.test('a request holding the old driver finishes on it while new requests already use the new one', async (t) => {
  const runner = nasRunner()
  const app = await build(t, { run: runner })
  const { token } = await owner(app)
  const status = () => app.inject({ method: 'GET', url: `${base}/status`, headers: auth(token) })
  await status() // warm the disk cache: from here /status waits only on df

  let release = () => {}
  const gate = new Promise<void>((r) => (release = r))
  let held = 0
  const df = runner.table[DF] as { stdout: string }
  runner.table[DF] = () => (held++ < 3 ? { ...df, wait: gate } : df)
  const old = [status(), status(), status()]
  while (runner.calls.filter((c) => c === DF).length < 4) await new Promise((r) => setTimeout(r, 5))

  runner.table[MDSTAT] = { stdout: 'Personalities : [raid1]\nunused devices: <none>\n' }
  let detected = false
  const detect = app.inject({ method: 'POST', url: `${base}/detect-provider`, headers: auth(token) }).then((r) => {
    detected = true
    return r
  })
  while (app.hearth.hal.active('storage')?.name !== 'mdadm') await new Promise((r) => setTimeout(r, 5))

  const fresh = await status()
  t.equal(fresh.json().data.provider, 'mdadm', 'a request begun after the switch is served by mdadm')
  t.equal(detected, false, 'the swap is not over: the old driver still has requests in flight')
  release()
  for (const r of await Promise.all(old)) {
    t.equal(r.statusCode, 200)
    t.equal(r.json().data.provider, 'linux-basic', 'the held request finished on linux-basic')
  }
  t.same((await detect).json().data, { previous: 'linux-basic', current: 'mdadm', changed: true })
})
