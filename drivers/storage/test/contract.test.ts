import { Value } from '@sinclair/typebox/value'
import t, { type Test } from 'tap'
import { type DriverContext, type DriverModule, runCommand } from '../../../core/plugin-api.js'
import { Disk, Pool, SmartRecord, Volume } from '../../../plugins/storage/schemas.js'
import { sourcePath } from '../../../test/paths.js'
import type { StorageDriver } from '../driver.js'
import linuxBasic from '../linux-basic/index.js'
import { LSBLK_ARGS } from '../linux-basic/lsblk.js'
import { DF_ARGS } from '../linux-basic/volumes.js'
import mdadm from '../mdadm/index.js'
import { replayContext, silentLog } from '../test-support/context.js'
import { readFixture } from '../test-support/replay.js'

/**
 * The storage conformance suite: what every storage driver must do, checked
 * through the driver module alone. Baseline methods always exist; an
 * optional method exists exactly when the probe grants its capability; every
 * answer has the API's shape. Run on captured output for both drivers, and
 * on this machine's real tools for every driver the machine supports.
 */
const fixture = (driver: string, name: string) => readFixture(sourcePath(import.meta.url, `../${driver}/test/fixtures/${name}`))

const capturedNas = () =>
  replayContext({
    [`lsblk ${LSBLK_ARGS.join(' ')}`]: { stdout: fixture('mdadm', 'lsblk-five-spare-disks.json') },
    [`df ${DF_ARGS.join(' ')}`]: { stdout: fixture('linux-basic', 'df-wsl2.txt') },
    'cat /proc/mdstat': { stdout: fixture('mdadm', 'mdstat-raid1-raid10-degraded.txt') },
    'mdadm --detail --export /dev/md126': { stdout: fixture('mdadm', 'detail-md126-raid1-degraded.txt') },
    'mdadm --detail --export /dev/md127': { code: 1 },
    'smartctl --json -a -n standby /dev/sdb': { stdout: fixture('linux-basic', 'smartctl-sata-hdd-wd20efrx.json') },
    'smartctl --json -a /dev/sdb': { stdout: fixture('linux-basic', 'smartctl-sata-hdd-wd20efrx.json') },
  })

const realMachine = (): DriverContext => ({ run: runCommand, log: silentLog, dataDir: '/tmp', now: Date.now, settings: {} })

async function conforms(t: Test, mod: DriverModule<StorageDriver>, ctx: DriverContext, where: string) {
  const probe = await mod.probe(ctx)
  if (!probe.supported) {
    t.comment(`${mod.manifest.name} not supported ${where}: ${probe.reason}`)
    return
  }
  const caps = new Set(probe.capabilities ?? mod.manifest.capabilities)
  t.ok(
    [...caps].every((c) => mod.manifest.capabilities.includes(c)),
    'the probe grants only declared capabilities',
  )
  const d = await mod.create(ctx)
  t.equal(d.provider, mod.manifest.name)
  for (const m of ['listDisks', 'listVolumes', 'listPools', 'usageOf'] as const) t.type(d[m], 'function', `baseline ${m}`)
  t.equal(typeof d.getSmart === 'function', caps.has('canGetSmart'), 'getSmart exactly with canGetSmart')
  t.equal(typeof d.createPool === 'function', caps.has('canCreatePool'), 'createPool exactly with canCreatePool')

  const disks = await d.listDisks()
  for (const disk of disks) t.ok(Value.Check(Disk, disk), `disk ${disk.device} has the API shape`)
  for (const v of [...(await d.listVolumes({ includeWindows: false })), ...(await d.listVolumes({ includeWindows: true }))]) {
    t.ok(Value.Check(Volume, v), `volume ${v.mount_point} has the API shape`)
  }
  const pools = await d.listPools()
  for (const p of pools) t.ok(Value.Check(Pool, p), `pool ${p.name} has the API shape`)
  if (!caps.has('canListPools')) t.same(pools, [], 'no pools without canListPools')
  if (d.getSmart && disks[0]) {
    const record = await d.getSmart(disks.find((x) => x.device === '/dev/sdb') ?? disks[0])
    t.ok(record === null || Value.Check(SmartRecord, record), 'SMART record has the API shape, or is null')
  }
  const usage = await d.usageOf('/')
  t.ok(usage.size_bytes > 0 && usage.free_bytes >= 0 && usage.used_bytes >= 0, 'usage of /')
}

for (const mod of [linuxBasic, mdadm] as DriverModule<StorageDriver>[]) {
  t.test(`${mod.manifest.name} conforms on captured output`, (t) => conforms(t, mod, capturedNas(), 'on captures'))
  t.test(`${mod.manifest.name} conforms on this machine's real tools`, (t) => conforms(t, mod, realMachine(), 'on this machine'))
}
