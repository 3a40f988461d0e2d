import t from 'tap'
import { existsSync } from 'node:fs'
import { auth, build, owner } from '../../../test/helper.js'

/**
 * linux-basic on this machine for real: the real lsblk, df and smartctl
 * through the HTTP API, no injected runner. What this VM has: one virtio
 * disk vda (no serial, no SMART), ext4 on /, no md in the kernel.
 */
const base = '/api/v1/hal/storage'

t.test('the real tools of this machine through the API', async (t) => {
  const app = await build(t)
  const { token } = await owner(app)
  const get = async (url: string) => {
    const r = await app.inject({ method: 'GET', url: `${base}${url}`, headers: auth(token) })
    t.equal(r.statusCode, 200, url)
    return r.json().data
  }
  const caps = await get('/capabilities')
  const expected = existsSync('/proc/mdstat') ? 'mdadm' : 'linux-basic'
  t.equal(caps.provider, expected, `provider: ${caps.provider}`)
  if (expected === 'linux-basic') {
    t.equal(caps.missing_for_full, 'mdadm')
    t.match(caps.drivers, [
      { name: 'mdadm', active: false, supported: false, reason: String },
      { name: 'linux-basic', active: true, supported: true },
    ])
  }

  const disks = await get('/disks')
  t.ok(disks.length >= 1, `${disks.length} disk(s): ${disks.map((d: { device: string }) => d.device).join(', ')}`)
  for (const d of disks) t.match(d, { id: /^disk_[a-z0-9]+$/, device: /^\/dev\//, size_bytes: Number })
  t.notOk(
    disks.some((d: { device: string }) => /zram|loop/.test(d.device)),
    'no RAM or loop devices',
  )
  const again = await get('/disks')
  t.same(
    again.map((d: { id: string }) => d.id),
    disks.map((d: { id: string }) => d.id),
    'ids are stable',
  )

  const smart = await get(`/disks/${disks[0].id}/smart`)
  if (disks[0].device === '/dev/vda') t.equal(smart, null, 'the virtio disk answers no SMART')

  const volumes = await get('/volumes')
  t.ok(
    volumes.some((v: { mount_point: string }) => v.mount_point === '/'),
    'the root filesystem is a volume',
  )
  t.notOk(
    volumes.some((v: { filesystem: string }) => ['tmpfs', 'devtmpfs', 'proc', 'sysfs', 'cgroup', 'overlay'].includes(v.filesystem)),
    'no virtual filesystems',
  )

  const status = await get('/status')
  t.match(status, {
    provider: expected,
    total_bytes: Number,
    used_bytes: Number,
    free_bytes: Number,
    health: /^(healthy|warning|critical|unknown)$/,
  })
  t.ok(status.total_bytes > 0 && status.free_bytes <= status.total_bytes)
  if (expected === 'linux-basic') t.same(await get('/pools'), [])
  t.equal((await get('/data-usage')).length, 8)
})
