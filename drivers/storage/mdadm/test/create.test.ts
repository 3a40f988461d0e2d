import t from 'tap'
import { sourcePath } from '../../../../test/paths.js'
import type { RaidLevel, StorageDriver } from '../../driver.js'
import { LSBLK_ARGS } from '../../linux-basic/lsblk.js'
import { replayContext } from '../../test-support/context.js'
import { readFixture } from '../../test-support/replay.js'
import mdadm from '../index.js'

const fixture = (name: string) => readFixture(sourcePath(import.meta.url, `fixtures/${name}`))
const LSBLK = `lsblk ${LSBLK_ARGS.join(' ')}`
const NO_ARRAYS = 'Personalities : [raid1] [raid6] [raid5] [raid4] [raid10]\nunused devices: <none>\n'

/** A machine with one system disk (sda) and five empty 1 GiB disks (sdb..sdf). */
async function machine(extra: Record<string, { stdout?: string; stderr?: string; code?: number }> = {}, mdstat = NO_ARRAYS) {
  const ctx = replayContext({
    [LSBLK]: { stdout: fixture('lsblk-five-spare-disks.json') },
    'cat /proc/mdstat': { stdout: mdstat },
    ...extra,
  })
  const driver = (await mdadm.create(ctx)) as Required<StorageDriver>
  const disks = await driver.listDisks()
  const id = (name: string) => disks.find((d) => d.device === `/dev/${name}`)?.id as string
  return { ctx, driver, id }
}

const createLine = (name: string, level: string, devices: string[]) =>
  [
    'mdadm',
    '--create',
    `/dev/md/${name}`,
    '--run',
    `--level=${level}`,
    `--raid-devices=${devices.length}`,
    '--metadata=1.2',
    `--name=${name}`,
    ...devices,
  ].join(' ')

t.test('creates a raid5 with mdadm --create as an argument array, then reports it', async (t) => {
  const created =
    'Personalities : [raid6] [raid5] [raid4]\nmd127 : active raid5 sdd[3] sdc[1] sdb[0]\n      2093056 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/2] [UU_]\n      [>....................]  recovery =  0.4% (4608/1046528) finish=0.3min speed=4608K/sec\n\nunused devices: <none>\n'
  let arrays = NO_ARRAYS
  const { ctx, driver, id } = await machine({})
  ctx.run.table['cat /proc/mdstat'] = () => ({ stdout: arrays })
  ctx.run.table[createLine('media', 'raid5', ['/dev/sdb', '/dev/sdc', '/dev/sdd'])] = () => {
    arrays = created
    return { stderr: 'mdadm: array /dev/md/media started.\n' }
  }
  ctx.run.table['mdadm --detail --export /dev/md127'] = {
    stdout:
      'MD_LEVEL=raid5\nMD_DEVICES=3\nMD_METADATA=1.2\nMD_UUID=1a2b3c4d:00000000:11111111:22222222\nMD_DEVNAME=media\nMD_NAME=nas:media\nMD_DEVICE_dev_sdb_ROLE=0\nMD_DEVICE_dev_sdb_DEV=/dev/sdb\nMD_DEVICE_dev_sdc_ROLE=1\nMD_DEVICE_dev_sdc_DEV=/dev/sdc\nMD_DEVICE_dev_sdd_ROLE=2\nMD_DEVICE_dev_sdd_DEV=/dev/sdd\n',
  }
  const pool = await driver.createPool({ name: 'media', type: 'raid5', diskIds: [id('sdb'), id('sdc'), id('sdd')] })
  t.match(pool, { id: 'pool_1a2b3c4d000000001111111122222222', name: 'media', type: 'raid5', status: 'rebuilding', rebuild_progress: 0.4 })
  t.same(
    pool.disks.map((d) => d.id),
    [id('sdd'), id('sdc'), id('sdb')],
  )
  t.ok(ctx.run.calls.includes(createLine('media', 'raid5', ['/dev/sdb', '/dev/sdc', '/dev/sdd'])))
})

t.test('per-level minimum disk counts', async (t) => {
  const { ctx, driver, id } = await machine()
  const all = ['sdb', 'sdc', 'sdd', 'sde', 'sdf'].map(id)
  const cases: Array<[RaidLevel, number]> = [
    ['raid0', 2],
    ['raid1', 2],
    ['raid5', 3],
    ['raid6', 4],
    ['raid10', 4],
  ]
  for (const [type, min] of cases) {
    await t.rejects(
      driver.createPool({ name: 'p', type, diskIds: all.slice(0, min - 1) }),
      {
        code: 'VALIDATION_ERROR',
        statusCode: 400,
        details: { field: 'diskIds', constraint: 'minItems', minimum: min },
      },
      `${type} with ${min - 1} disks`,
    )
  }
  t.notOk(
    ctx.run.calls.some((c) => c.includes('--create')),
    'mdadm never ran',
  )
})

t.test('disks in use are refused with 409; unknown disks with 422', async (t) => {
  const { ctx, driver, id } = await machine()
  await t.rejects(driver.createPool({ name: 'p', type: 'raid1', diskIds: [id('sda'), id('sdb')] }), {
    code: 'CONFLICT',
    statusCode: 409,
    message: /sda2 is mounted at \/boot/,
  })
  await t.rejects(driver.createPool({ name: 'p', type: 'raid1', diskIds: ['disk_ffffffffffffffff', id('sdb')] }), { code: 'UNPROCESSABLE' })
  const member =
    'Personalities : [raid1]\nmd0 : active raid1 sdc[1] sdb[0]\n      1046528 blocks super 1.2 [2/2] [UU]\n\nunused devices: <none>\n'
  ctx.run.table['cat /proc/mdstat'] = { stdout: member }
  ctx.run.table['mdadm --detail --export /dev/md0'] = { code: 1 }
  await t.rejects(driver.createPool({ name: 'p', type: 'raid1', diskIds: [id('sdb'), id('sdd')] }), {
    code: 'CONFLICT',
    message: /sdb is a member of an existing array/,
  })
  await t.rejects(driver.createPool({ name: 'md0', type: 'raid1', diskIds: [id('sdd'), id('sde')] }), {
    code: 'CONFLICT',
    message: /already exists/,
  })
  t.notOk(ctx.run.calls.some((c) => c.includes('--create')))
})

t.test('mdadm refusing maps to 422 with its message (real stderr of this VM, no md in the kernel)', async (t) => {
  const { ctx, driver, id } = await machine()
  ctx.run.table[createLine('backup', 'raid1', ['/dev/sde', '/dev/sdf'])] = {
    code: 1,
    stderr: fixture('mdadm-create-no-md-kernel.stderr.txt'),
  }
  await t.rejects(driver.createPool({ name: 'backup', type: 'raid1', diskIds: [id('sde'), id('sdf')] }), {
    code: 'UNPROCESSABLE',
    statusCode: 422,
    message: /unexpected failure opening \/dev\/md127/,
  })
  ctx.run.table[createLine('busy', 'raid1', ['/dev/sde', '/dev/sdf'])] = {
    code: 1,
    stderr: 'mdadm: cannot open /dev/sde: Device or resource busy\n',
  }
  await t.rejects(driver.createPool({ name: 'busy', type: 'raid1', diskIds: [id('sde'), id('sdf')] }), { code: 'CONFLICT' })
})

t.test('pool names outside the safe alphabet never reach mdadm', async (t) => {
  const { ctx, driver, id } = await machine()
  for (const name of ['../etc', 'a b', '-rf', '']) {
    await t.rejects(driver.createPool({ name, type: 'raid1', diskIds: [id('sdb'), id('sdc')] }), {
      code: 'VALIDATION_ERROR',
      details: { field: 'name' },
    })
  }
  t.notOk(ctx.run.calls.some((c) => c.includes('--create')))
})
