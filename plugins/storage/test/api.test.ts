import t from 'tap'
import { addUser, auth, build, owner } from '../../../test/helper.js'
import { MDSTAT, mdadmFixture, nasRunner } from './machine.js'

const base = '/api/v1/hal/storage'

t.test('linux-basic over real captures: disk shape, SMART per disk kind, status health', async (t) => {
  const app = await build(t, { run: nasRunner() })
  const { token } = await owner(app)
  const get = (url: string) => app.inject({ method: 'GET', url: `${base}${url}`, headers: auth(token) })

  const disks = (await get('/disks')).json().data as Array<Record<string, unknown>>
  t.same(
    disks.map((d) => d.device),
    ['/dev/sda', '/dev/sdb', '/dev/sdc', '/dev/sdd', '/dev/sde', '/dev/sdf'],
    'sr0 (rom) is no disk',
  )
  for (const d of disks) {
    t.same(Object.keys(d).sort(), ['device', 'id', 'model', 'partitions', 'serial', 'size_bytes', 'smart_status', 'temperature_c', 'type'])
    t.match(d.id, /^disk_[a-z0-9]+$/)
  }
  const byDevice = Object.fromEntries(disks.map((d) => [d.device, d]))
  t.same((byDevice['/dev/sda'] as { partitions: unknown }).partitions, [
    { name: 'sda1', mount_point: null, filesystem: null, size_bytes: 1048576 },
    { name: 'sda2', mount_point: '/boot', filesystem: 'ext4', size_bytes: 1932735283 },
    { name: 'sda3', mount_point: null, filesystem: 'LVM2_member', size_bytes: 19005230284 },
  ])
  t.match(byDevice['/dev/sdb'], { smart_status: 'healthy', temperature_c: 34 })
  t.match(byDevice['/dev/sdf'], { smart_status: 'critical', temperature_c: 27 })
  t.match(byDevice['/dev/sde'], { smart_status: null, temperature_c: null })

  const smart = async (device: string) => (await get(`/disks/${byDevice[device]?.id}/smart`)).json().data
  t.match(await smart('/dev/sdb'), { overall_status: 'healthy', power_on_hours: 47657, temperature_c: 34, reallocated_sectors: 0 })
  t.match(await smart('/dev/sdc'), { overall_status: 'healthy', power_on_hours: 84619, reallocated_sectors: 0 })
  t.match(await smart('/dev/sdd'), { overall_status: 'healthy', power_on_hours: 3149, reallocated_sectors: null })
  t.match(await smart('/dev/sdf'), { overall_status: 'critical', reallocated_sectors: 535 })
  t.equal((await smart('/dev/sdf')).attributes.length, 20, 'full attribute table')
  t.equal(await smart('/dev/sde'), null, 'USB bridge without SMART: null')

  const status = (await get('/status')).json().data
  t.match(status, {
    provider: 'linux-basic',
    health: 'critical',
    total_bytes: 270553174016,
    used_bytes: 23750963200,
    free_bytes: 85193330688,
  })
  t.same((await get('/pools')).json().data, [])
})

t.test('bad input: malformed id 400, unknown 404, pool on linux-basic 422, admin-only detection', async (t) => {
  const app = await build(t, { run: nasRunner() })
  const o = await owner(app)
  const user = await addUser(app, o.token)
  const res = (method: 'GET' | 'POST', url: string, token = o.token, payload?: object) =>
    app.inject({ method, url: `${base}${url}`, headers: auth(token), payload })

  for (const bad of ['sda', 'disk_ABC', 'disk_', 'disk_x%2F..', 'disk_' + 'a'.repeat(80)]) {
    const r = await res('GET', `/disks/${bad}/smart`)
    t.equal(r.statusCode, 400, bad)
    t.equal(r.json().error.code, 'VALIDATION_ERROR')
  }
  t.equal((await res('GET', '/disks/disk_0123456789abcdef/smart')).statusCode, 404)
  const pool = await res('POST', '/pools', o.token, {
    name: 'media',
    type: 'raid1',
    diskIds: ['disk_0123456789abcdef', 'disk_0123456789abcde0'],
  })
  t.equal(pool.statusCode, 422)
  t.equal(pool.json().error.code, 'UNPROCESSABLE')
  t.equal((await res('GET', '/volumes?include_windows=maybe')).json().error.code, 'INVALID_QUERY')

  const forbidden = await res('POST', '/detect-provider', user.token)
  t.equal(forbidden.statusCode, 403)
  t.equal(forbidden.json().error.code, 'FORBIDDEN')
  t.equal((await res('GET', '/disks', user.token)).statusCode, 200, 'any user may read storage')
  const detect = await res('POST', '/detect-provider')
  t.same(detect.json().data, { previous: 'linux-basic', current: 'linux-basic', changed: false })
})

t.test('mdadm picked where the kernel has md: pools, creation, validation', async (t) => {
  const runner = nasRunner({ mdstat: mdadmFixture('mdstat-raid10-rebuilding.txt') })
  runner.table['mdadm --detail --export /dev/md0'] = { code: 1, stderr: 'mdadm: cannot open /dev/md0: No such file or directory\n' }
  const app = await build(t, { run: runner })
  const o = await owner(app)
  const admin = await addUser(app, o.token, { role: 'admin' })
  const user = await addUser(app, o.token)
  const res = (method: 'GET' | 'POST', url: string, token = o.token, payload?: object) =>
    app.inject({ method, url: `${base}${url}`, headers: auth(token), payload })

  const caps = (await res('GET', '/capabilities')).json().data
  t.match(caps, {
    provider: 'mdadm',
    missing_for_full: null,
    capabilities: { canCreatePool: true, canReportRebuild: true, canManageShares: false },
  })
  const [pool] = (await res('GET', '/pools')).json().data
  t.match(pool, { type: 'raid10', status: 'rebuilding', degraded: true, rebuild_progress: 6.3 })
  t.match((await res('GET', '/status')).json().data, { provider: 'mdadm', health: 'critical' })

  const disks = (await res('GET', '/disks')).json().data as Array<{ id: string; device: string }>
  const id = (name: string) => disks.find((d) => d.device === `/dev/${name}`)?.id as string
  // sdb..sde are members of md0 (real mdstat): refused. sdf is free but one disk is not enough.
  const inUse = await res('POST', '/pools', admin.token, { name: 'backup', type: 'raid1', diskIds: [id('sdb'), id('sdf')] })
  t.equal(inUse.statusCode, 409)
  t.match(inUse.json().error, { code: 'CONFLICT', message: /sdb is a member of an existing array/ })
  const tooFew = await res('POST', '/pools', admin.token, { name: 'backup', type: 'raid5', diskIds: [id('sdf')] })
  t.match(tooFew.json().error, { code: 'VALIDATION_ERROR', details: { field: 'diskIds', constraint: 'minItems', minimum: 3 } })
  for (const body of [
    { name: 'x', type: 'raid7', diskIds: [id('sdf'), id('sdb')] },
    { name: 'x', type: 'raid1', diskIds: 'sdf' },
    { name: 'x', type: 'raid1', diskIds: [id('sdf'), id('sdf')] },
    { name: 'x y', type: 'raid1', diskIds: [id('sdf'), id('sdb')] },
    { name: 'x', type: 'raid1', diskIds: [id('sdf'), id('sdb')], force: true },
    { type: 'raid1', diskIds: [id('sdf'), id('sdb')] },
  ]) {
    const r = await res('POST', '/pools', admin.token, body)
    t.equal(r.statusCode, 400, JSON.stringify(body))
    t.equal(r.json().error.code, 'VALIDATION_ERROR')
  }
  t.equal((await res('POST', '/pools', user.token, { name: 'x', type: 'raid1', diskIds: [id('sdf'), id('sdb')] })).statusCode, 403)
  t.notOk(
    runner.calls.some((c) => c.includes('--create')),
    'nothing reached mdadm --create',
  )
  t.ok(runner.calls.includes(MDSTAT))
})
