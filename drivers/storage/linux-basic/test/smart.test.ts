import t from 'tap'
import { sourcePath } from '../../../../test/paths.js'
import type { Disk, StorageDriver } from '../../driver.js'
import { replayContext } from '../../test-support/context.js'
import { readFixture } from '../../test-support/replay.js'
import linuxBasic from '../index.js'

const fixture = (name: string) => readFixture(sourcePath(import.meta.url, `fixtures/${name}`))
const disk = (device: string): Disk => ({
  id: 'disk_0123456789abcdef',
  device,
  model: null,
  serial: null,
  size_bytes: 1,
  type: 'unknown',
  temperature_c: null,
  smart_status: null,
  partitions: [],
})

/** One driver whose smartctl answers each device with a real capture (and its real exit status). */
async function driverWith(replies: Record<string, { file: string; code: number }>): Promise<StorageDriver> {
  const table = Object.fromEntries(
    Object.entries(replies).map(([dev, r]) => [`smartctl --json -a ${dev}`, { stdout: fixture(r.file), code: r.code }]),
  )
  const ctx = replayContext(table)
  t.equal((await linuxBasic.probe(ctx)).supported, true)
  return linuxBasic.create(ctx)
}

t.test('SMART of real disks: status, hours, temperature, reallocated sectors, full attribute table', async (t) => {
  const d = await driverWith({
    '/dev/sdb': { file: 'smartctl-sata-hdd-wd20efrx.json', code: 0 },
    '/dev/sda': { file: 'smartctl-sata-ssd-samsung-mz7wd240.json', code: 0 },
    '/dev/nvme0': { file: 'smartctl-nvme-samsung-970evo.json', code: 0 },
    '/dev/sdf': { file: 'smartctl-failing-wd3200bevt.json', code: 216 },
  })
  const getSmart = d.getSmart as NonNullable<StorageDriver['getSmart']>

  const hdd = await getSmart(disk('/dev/sdb'))
  t.match(hdd, {
    disk_id: 'disk_0123456789abcdef',
    overall_status: 'healthy',
    power_on_hours: 47657,
    temperature_c: 34,
    reallocated_sectors: 0,
  })
  t.equal(hdd?.attributes.length, 17, 'every ATA attribute row is kept')
  t.match(
    hdd?.attributes.find((a) => a.id === 9),
    { name: 'Power_On_Hours', value: 35, worst: 35, threshold: 0, raw_value: 47657 },
  )

  const ssd = await getSmart(disk('/dev/sda'))
  t.match(ssd, { overall_status: 'healthy', power_on_hours: 84619, temperature_c: 27, reallocated_sectors: 0 })
  t.ok(ssd?.attributes.some((a) => a.name === 'Wear_Leveling_Count' && a.raw_value === 1661))

  const nvme = await getSmart(disk('/dev/nvme0'))
  t.match(nvme, { overall_status: 'healthy', power_on_hours: 3149, temperature_c: 35, reallocated_sectors: null })
  t.ok(
    nvme?.attributes.some((a) => a.name === 'available_spare' && a.raw_value === 100),
    'NVMe health log as attributes',
  )

  const failing = await getSmart(disk('/dev/sdf'))
  t.match(failing, { overall_status: 'critical', reallocated_sectors: 535, power_on_hours: 16402, temperature_c: 27 })
  t.match(
    failing?.attributes.find((a) => a.id === 5),
    { when_failed: 'now', prefailure: true },
  )
})

t.test('devices without SMART answer null, not an error', async (t) => {
  const d = await driverWith({
    '/dev/sdg': { file: 'smartctl-usb-unknown-bridge.json', code: 1 },
    '/dev/vda': { file: 'smartctl-virtio-vda.json', code: 1 },
  })
  t.equal(await d.getSmart?.(disk('/dev/sdg')), null, 'USB bridge smartctl does not know')
  t.equal(await d.getSmart?.(disk('/dev/vda')), null, 'virtio disk of this VM (real capture)')
})

t.test('smartctl failures map to API errors', async (t) => {
  const ctx = replayContext({
    'smartctl --json -a /dev/sdx': { code: null },
    'smartctl --json -a /dev/sdy': { stdout: 'Segmentation fault', code: 139 },
  })
  const d = await linuxBasic.create(ctx)
  await t.rejects(d.getSmart?.(disk('/dev/sdx')) as Promise<unknown>, { code: 'SERVICE_UNAVAILABLE', statusCode: 503 })
  await t.rejects(d.getSmart?.(disk('/dev/sdy')) as Promise<unknown>, { code: 'SERVICE_UNAVAILABLE' })
  await t.rejects(
    d.getSmart?.(disk('/dev/sda; rm -rf /')) as Promise<unknown>,
    { code: 'UNPROCESSABLE' },
    'no odd device paths reach smartctl',
  )
  t.notOk(ctx.run.calls.some((c) => c.includes('rm -rf')))
})

t.test('without smartctl the driver does not offer SMART', async (t) => {
  const ctx = replayContext({})
  delete ctx.run.table['smartctl --version']
  const probe = await linuxBasic.probe(ctx)
  t.same(probe, { supported: true, capabilities: ['canListDisks', 'canListVolumes', 'canGetUsage', 'canGetDataUsage'] })
  t.equal((await linuxBasic.create(ctx)).getSmart, undefined)
})
