import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { auth, build, owner, type TestContext } from '../../../test/helper.js'
import { basicFixture, LSBLK, manualClock, MDSTAT, mdadmFixture, nasRunner } from './machine.js'

const base = '/api/v1/hal/storage'
const MINUTE = 60_000

/** lsblk of the NAS without its last disk: what the box reports after sdf is pulled. */
const withoutSdf = () => {
  const tree = JSON.parse(mdadmFixture('lsblk-five-spare-disks.json'))
  tree.blockdevices = tree.blockdevices.filter((d: { name: string }) => d.name !== 'sdf')
  return JSON.stringify(tree)
}

async function setup(t: TestContext) {
  const clock = manualClock()
  const runner = nasRunner()
  const app = await build(t, { run: runner, now: clock.now })
  const { token } = await owner(app)
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url: `${base}${url}`, headers: auth(token) })
    if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode} ${r.body}`)
    return r.json().data
  }
  const post = (url: string) => app.inject({ method: 'POST', url: `${base}${url}`, headers: auth(token) })
  return { app, clock, runner, get, post }
}

t.test('disks: kept 5 minutes, then listed again', async (t) => {
  const { clock, runner, get } = await setup(t)
  t.equal((await get('/disks')).length, 6)
  runner.table[LSBLK] = { stdout: withoutSdf() }
  clock.advance(5 * MINUTE - 1)
  t.equal((await get('/disks')).length, 6, 'still the cached list just before 5 minutes')
  clock.advance(1)
  t.equal((await get('/disks')).length, 5, 'listed again at 5 minutes')
})

t.test('SMART: kept 30 minutes per disk', async (t) => {
  const { clock, runner, get } = await setup(t)
  const disks = await get('/disks')
  const sdb = disks.find((d: { device: string }) => d.device === '/dev/sdb').id
  t.equal((await get(`/disks/${sdb}/smart`)).overall_status, 'healthy')
  // The disk starts failing: the cached record stays until its 30 minutes are up.
  runner.table['smartctl --json -a /dev/sdb'] = { stdout: basicFixture('smartctl-failing-wd3200bevt.json'), code: 216 }
  clock.advance(30 * MINUTE - 1)
  t.equal((await get(`/disks/${sdb}/smart`)).overall_status, 'healthy')
  clock.advance(1)
  t.equal((await get(`/disks/${sdb}/smart`)).overall_status, 'critical')
})

t.test('data usage: kept 5 minutes', async (t) => {
  const { app, clock, get } = await setup(t)
  mkdirSync(join(app.dataDir, 'photos'), { recursive: true })
  writeFileSync(join(app.dataDir, 'photos', 'a.jpg'), Buffer.alloc(1000))
  const photos = async () => (await get('/data-usage')).find((c: { name: string }) => c.name === 'photos')
  t.same(await photos(), { name: 'photos', label: 'Photos', size_bytes: 1000, status: 'ok' })
  writeFileSync(join(app.dataDir, 'photos', 'b.jpg'), Buffer.alloc(500))
  clock.advance(5 * MINUTE - 1)
  t.equal((await photos()).size_bytes, 1000)
  clock.advance(1)
  t.equal((await photos()).size_bytes, 1500)
})

t.test('detect-provider clears every storage cache, swap or not', async (t) => {
  const { app, runner, get, post } = await setup(t)
  mkdirSync(join(app.dataDir, 'files'), { recursive: true })
  const disks = await get('/disks')
  const sdb = disks.find((d: { device: string }) => d.device === '/dev/sdb').id
  await get(`/disks/${sdb}/smart`)
  await get('/data-usage')

  // Re-detection keeping linux-basic still clears.
  runner.table[LSBLK] = { stdout: withoutSdf() }
  t.same((await post('/detect-provider')).json().data, { previous: 'linux-basic', current: 'linux-basic', changed: false })
  t.equal((await get('/disks')).length, 5)

  // The kernel gains md: the swap to mdadm clears again (driver.changed).
  runner.table['smartctl --json -a /dev/sdb'] = { stdout: basicFixture('smartctl-failing-wd3200bevt.json'), code: 216 }
  writeFileSync(join(app.dataDir, 'files', 'new.bin'), Buffer.alloc(4096))
  runner.table[MDSTAT] = { stdout: 'Personalities : [raid1]\nunused devices: <none>\n' }
  t.same((await post('/detect-provider')).json().data, { previous: 'linux-basic', current: 'mdadm', changed: true })
  t.equal((await get(`/disks/${sdb}/smart`)).overall_status, 'critical')
  t.equal((await get('/data-usage')).find((c: { name: string }) => c.name === 'files').size_bytes, 4096)
  t.equal((await get('/capabilities')).provider, 'mdadm')
})

t.test('concurrent callers of a cold entry share one computation', async (t) => {
  const { runner, get } = await setup(t)
  const lsblk = runner.table[LSBLK] as { stdout: string }
  runner.table[LSBLK] = { ...lsblk, delayMs: 100 }
  const before = runner.calls.filter((c) => c === LSBLK).length
  const answers = await Promise.all(Array.from({ length: 20 }, () => get('/disks')))
  t.equal(runner.calls.filter((c) => c === LSBLK).length - before, 1, 'lsblk ran once for 20 callers')
  t.ok(answers.every((a) => a.length === 6))
})
