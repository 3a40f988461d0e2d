import t from 'tap'
import { sourcePath } from '../../../../test/paths.js'
import { LSBLK_ARGS } from '../../linux-basic/lsblk.js'
import { replayContext } from '../../test-support/context.js'
import { readFixture, type ReplyTable } from '../../test-support/replay.js'
import mdadm from '../index.js'

const fixture = (name: string) => readFixture(sourcePath(import.meta.url, `fixtures/${name}`))
const LSBLK = `lsblk ${LSBLK_ARGS.join(' ')}`
const EMPTY_LSBLK = { stdout: '{"blockdevices": []}' }

/** An mdadm driver whose /proc/mdstat and `mdadm --detail --export` are real captures. */
async function poolsOf(mdstat: string, details: Record<string, string> = {}) {
  const text = fixture(mdstat)
  const table: ReplyTable = { 'cat /proc/mdstat': { stdout: text }, [LSBLK]: EMPTY_LSBLK }
  // Arrays without a captured export answer as mdadm 4.2 does on this VM for a missing array.
  for (const [, md] of text.matchAll(/^(md\w+) :/gm)) {
    table[`mdadm --detail --export /dev/${md}`] = { code: 1, stderr: `mdadm: cannot open /dev/${md}: No such file or directory\n` }
  }
  for (const [md, file] of Object.entries(details)) table[`mdadm --detail --export /dev/${md}`] = { stdout: fixture(file) }
  const ctx = replayContext(table)
  const probe = await mdadm.probe(ctx)
  t.equal(probe.supported, true)
  return (await mdadm.create(ctx)).listPools()
}

const states = (pool: { disks: Array<{ device: string; state: string }> } | undefined) =>
  Object.fromEntries((pool?.disks ?? []).map((d) => [d.device, d.state]))

t.test('raid1 healthy, degraded and rebuilding', async (t) => {
  const [healthy] = await poolsOf('mdstat-raid1-healthy.txt', { md127: 'detail-md127-raid1-healthy.txt' })
  t.match(healthy, {
    id: 'pool_d0d685373bc9e8fd770d7d5e353ce578',
    name: 'raid_2tb',
    type: 'raid1',
    status: 'healthy',
    size_bytes: 1936781312 * 1024,
    degraded: false,
    rebuild_progress: null,
  })
  t.same(states(healthy), { '/dev/sdc5': 'active', '/dev/sdd5': 'active' })

  const [raid1, raid10] = await poolsOf('mdstat-raid1-raid10-degraded.txt', { md126: 'detail-md126-raid1-degraded.txt' })
  t.match(raid1, { name: 'RAIDE1', type: 'raid1', status: 'degraded', degraded: true, size_bytes: 151488 * 1024 })
  t.same(states(raid1), { '/dev/sde2': 'active', '/dev/sdc2': 'faulty' })
  t.match(
    raid10,
    { id: 'pool_md127', name: 'md127', type: 'raid10', status: 'degraded', degraded: true },
    'no detail: named after the md device',
  )

  const [rebuilding] = await poolsOf('mdstat-raid1-rebuilding.txt')
  t.match(rebuilding, { type: 'raid1', status: 'rebuilding', degraded: true, rebuild_progress: 6.6 })
  t.same(states(rebuilding), { '/dev/hdd1': 'rebuilding', '/dev/hda1': 'active' })
})

t.test('raid5 healthy, degraded and rebuilding', async (t) => {
  const [raid5, raid1] = await poolsOf('mdstat-raid5-healthy.txt')
  t.match(raid5, { type: 'raid5', status: 'healthy', degraded: false, size_bytes: 112639744 * 1024 })
  t.match(raid1, { type: 'raid1', status: 'healthy' })

  const [degraded] = await poolsOf('mdstat-raid5-degraded.txt')
  t.match(degraded, { type: 'raid5', status: 'degraded', degraded: true, rebuild_progress: null })

  const [rebuilding] = await poolsOf('mdstat-raid5-rebuilding.txt', { md0: 'detail-md0-raid5-rebuilding.txt' })
  t.match(rebuilding, { name: '0', type: 'raid5', status: 'rebuilding', degraded: true, rebuild_progress: 12.6 })
  t.equal(states(rebuilding)['/dev/sdh1'], 'rebuilding', 'the member in the missing slot is the one rebuilt')
  t.equal(Object.values(states(rebuilding)).filter((s) => s === 'active').length, 5)
})

t.test('raid10 healthy, degraded and rebuilding', async (t) => {
  const [healthy] = await poolsOf('mdstat-raid10-healthy.txt')
  t.match(healthy, { type: 'raid10', status: 'healthy', degraded: false, size_bytes: 507904 * 1024 })
  const [degraded] = await poolsOf('mdstat-raid10-degraded.txt')
  t.match(degraded, { status: 'degraded', degraded: true })
  t.equal(states(degraded)['/dev/sde'], 'faulty')
  const [rebuilding] = await poolsOf('mdstat-raid10-rebuilding.txt')
  t.match(rebuilding, { status: 'rebuilding', degraded: true, rebuild_progress: 6.3 })
  t.equal(states(rebuilding)['/dev/sde'], 'rebuilding')
})

t.test('members map to the stable ids of their disks', async (t) => {
  const lsblk = JSON.stringify({
    blockdevices: ['sdc', 'sdd'].map((name, i) => ({
      name,
      kname: name,
      type: 'disk',
      size: 2000398934016,
      serial: `WD-SERIAL${i}`,
      model: 'WDC WD20EFRX-68EUZN0',
      children: [{ name: `${name}5`, kname: `${name}5`, type: 'part', size: 1983264063488, fstype: 'linux_raid_member' }],
    })),
  })
  const ctx = replayContext({
    'cat /proc/mdstat': { stdout: fixture('mdstat-raid1-healthy.txt') },
    'mdadm --detail --export /dev/md127': { stdout: fixture('detail-md127-raid1-healthy.txt') },
    [LSBLK]: { stdout: lsblk },
  })
  const driver = await mdadm.create(ctx)
  const disks = await driver.listDisks()
  const [pool] = await driver.listPools()
  t.same(pool?.disks.map((d) => d.id).sort(), disks.map((d) => d.id).sort())
})

t.test('probe: needs a working mdadm and a kernel with md', async (t) => {
  const noMdadm = replayContext({})
  delete noMdadm.run.table['mdadm --version']
  t.same(await mdadm.probe(noMdadm), { supported: false, reason: 'mdadm is not installed' })
  // This VM: mdadm 4.2 installed, but the kernel has no md (real `cat` answer).
  const noMd = replayContext({ 'cat /proc/mdstat': { code: 1, stderr: 'cat: /proc/mdstat: No such file or directory\n' } })
  t.match(await mdadm.probe(noMd), { supported: false, reason: /no md RAID/ })
  const ok = await mdadm.probe(replayContext({ 'cat /proc/mdstat': { stdout: fixture('mdstat-raid10-healthy.txt') } }))
  t.match(ok, {
    supported: true,
    capabilities: [
      'canListDisks',
      'canListVolumes',
      'canGetUsage',
      'canGetDataUsage',
      'canGetSmart',
      'canListPools',
      'canCreatePool',
      'canReportRebuild',
    ],
  })
})

t.test('the inactive-array export (spares only) parses; state stays from mdstat', async (t) => {
  const { parseDetailExport } = await import('../detail.js')
  const detail = parseDetailExport(fixture('detail-md127-raid5-inactive.txt'))
  t.same(detail.members, [
    { device: '/dev/sdc', role: 'spare' },
    { device: '/dev/sdd', role: 'spare' },
    { device: '/dev/sdb', role: 'spare' },
  ])
  t.match(detail, { level: null, devices: 3, devname: 'debian:R5' })
})
