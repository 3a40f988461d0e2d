import t, { type Test } from 'tap'
import { auth, build, owner } from '../../../test/helper.js'
import { mdadmFixture, nasRunner, SMART_OF } from './machine.js'

/** GET /status health from the disks' SMART and the pools' state, on real captures. */
const healthy = Object.fromEntries(Object.entries(SMART_OF).filter(([device]) => device !== '/dev/sdf'))
const silent = Object.fromEntries(Object.keys(SMART_OF).map((device) => [device, ['smartctl-virtio-vda.json', 1] as [string, number]]))

async function healthOf(t: Test, opts: Parameters<typeof nasRunner>[0]) {
  const runner = nasRunner(opts)
  for (const md of ['md0', 'md1', 'md2', 'md126', 'md127']) runner.table[`mdadm --detail --export /dev/${md}`] = { code: 1 }
  const app = await build(t, { run: runner })
  const { token } = await owner(app)
  const res = await app.inject({ method: 'GET', url: '/api/v1/hal/storage/status', headers: auth(token) })
  t.equal(res.statusCode, 200)
  return res.json().data as { provider: string; health: string }
}

t.test('healthy SMART, no pools: healthy', async (t) => {
  t.match(await healthOf(t, { smart: healthy }), { provider: 'linux-basic', health: 'healthy' })
})

t.test('no disk answers SMART and no pools: unknown', async (t) => {
  t.match(await healthOf(t, { smart: silent }), { health: 'unknown' })
})

t.test('a failing disk: critical', async (t) => {
  t.match(await healthOf(t, {}), { health: 'critical' })
})

t.test('healthy disks, a pool rebuilding: warning', async (t) => {
  t.match(await healthOf(t, { smart: healthy, mdstat: mdadmFixture('mdstat-raid10-rebuilding.txt') }), {
    provider: 'mdadm',
    health: 'warning',
  })
})

t.test('healthy disks, a degraded pool without rebuild: critical', async (t) => {
  t.match(await healthOf(t, { smart: healthy, mdstat: mdadmFixture('mdstat-raid5-degraded.txt') }), {
    provider: 'mdadm',
    health: 'critical',
  })
})

t.test('healthy disks, healthy pools: healthy', async (t) => {
  t.match(await healthOf(t, { smart: healthy, mdstat: mdadmFixture('mdstat-raid10-healthy.txt') }), {
    provider: 'mdadm',
    health: 'healthy',
  })
})
