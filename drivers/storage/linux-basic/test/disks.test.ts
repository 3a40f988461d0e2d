import t from 'tap'
import { sourcePath } from '../../../../test/paths.js'
import { replayContext } from '../../test-support/context.js'
import { readFixture } from '../../test-support/replay.js'
import linuxBasic from '../index.js'
import { LSBLK_ARGS } from '../lsblk.js'

const fixture = (name: string) => readFixture(sourcePath(import.meta.url, `fixtures/${name}`))
const LSBLK = `lsblk ${LSBLK_ARGS.join(' ')}`

t.test('disks and partitions from a real lsblk capture (NVMe, GPT, two partitions)', async (t) => {
  const ctx = replayContext({
    [LSBLK]: { stdout: fixture('lsblk-nvme-partitions.json') },
    'smartctl --json -a -n standby /dev/nvme0n1': { stdout: fixture('smartctl-nvme-samsung-970evo.json') },
  })
  const driver = await linuxBasic.create(ctx)
  const disks = await driver.listDisks()
  t.equal(disks.length, 1)
  t.match(disks[0], {
    id: /^disk_[a-z0-9]+$/,
    device: '/dev/nvme0n1',
    model: 'SAMSUNG MZVPV512HDGL-000H1',
    serial: 'S27FNYAH407000',
    size_bytes: 512110190592,
    type: 'nvme',
    temperature_c: 35,
    smart_status: 'healthy',
  })
  t.same(disks[0]?.partitions, [
    { name: 'nvme0n1p1', mount_point: '/boot/efi', filesystem: 'vfat', size_bytes: 536870912 },
    { name: 'nvme0n1p2', mount_point: '/', filesystem: 'ext4', size_bytes: 511571918848 },
  ])
  t.same(Object.keys(disks[0] ?? {}).sort(), [
    'device',
    'id',
    'model',
    'partitions',
    'serial',
    'size_bytes',
    'smart_status',
    'temperature_c',
    'type',
  ])
})

t.test('a disk keeps its id when the kernel renames it', async (t) => {
  const original = fixture('lsblk-nvme-partitions.json')
  const renamed = original.replaceAll('nvme0n1', 'nvme1n1')
  const ids: string[] = []
  for (const stdout of [original, renamed]) {
    const driver = await linuxBasic.create(replayContext({ [LSBLK]: { stdout } }))
    const [disk] = await driver.listDisks()
    ids.push(disk?.id ?? '')
  }
  t.equal(ids[0], ids[1])
  const otherDisk = original.replace('S27FNYAH407000', 'S27FNYAH407001').replaceAll('eui.002538646100e442', '')
  const [other] = await (await linuxBasic.create(replayContext({ [LSBLK]: { stdout: otherDisk } }))).listDisks()
  t.not(other?.id, ids[0], 'another serial gives another id')
})

t.test('this VM: the virtio disk listed (no serial: id from its kernel name), zram left out', async (t) => {
  const ctx = replayContext({
    [LSBLK]: { stdout: fixture('lsblk-this-vm.json') },
    'smartctl --json -a -n standby /dev/vda': { stdout: fixture('smartctl-virtio-vda.json'), code: 1 },
  })
  const disks = await (await linuxBasic.create(ctx)).listDisks()
  t.equal(disks.length, 1)
  t.match(disks[0], { device: '/dev/vda', type: 'unknown', smart_status: null, temperature_c: null, size_bytes: 274877906944 })
})

t.test('lsblk missing or broken: 503, never a crash', async (t) => {
  const missing = await linuxBasic.create(replayContext({}))
  await t.rejects(missing.listDisks(), { code: 'SERVICE_UNAVAILABLE', message: 'lsblk is not installed' })
  const garbage = await linuxBasic.create(replayContext({ [LSBLK]: { stdout: '<html>' } }))
  await t.rejects(garbage.listDisks(), { code: 'SERVICE_UNAVAILABLE' })
  const failing = await linuxBasic.create(
    replayContext({ [LSBLK]: { code: 32, stderr: 'lsblk: failed to access sysfs directory: /sys/dev/block' } }),
  )
  await t.rejects(failing.listDisks(), { code: 'SERVICE_UNAVAILABLE', message: /failed to access sysfs/ })
  t.same(await linuxBasic.probe(replayContext({ 'lsblk --version': { code: 1 } })), { supported: false, reason: 'lsblk is not installed' })
})

t.test('listing never wakes a sleeping disk; asking for its SMART record does', async (t) => {
  const ctx = replayContext({
    [LSBLK]: { stdout: fixture('lsblk-nvme-partitions.json') },
    'smartctl --json -a -n standby /dev/nvme0n1': { stdout: fixture('smartctl-standby.json'), code: 2 },
    'smartctl --json -a /dev/nvme0n1': { stdout: fixture('smartctl-nvme-samsung-970evo.json') },
  })
  const driver = await linuxBasic.create(ctx)
  const [disk] = await driver.listDisks()
  t.match(disk, { smart_status: null, temperature_c: null }, 'asleep: listed without SMART')
  t.notOk(ctx.run.calls.includes('smartctl --json -a /dev/nvme0n1'), 'the listing did not spin it up')
  t.match(await driver.getSmart?.(disk as NonNullable<typeof disk>), { overall_status: 'healthy' })
})
