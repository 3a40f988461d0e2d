import t from 'tap'
import { sourcePath } from '../../../../test/paths.js'
import { replayContext } from '../../test-support/context.js'
import { readFixture } from '../../test-support/replay.js'
import linuxBasic from '../index.js'
import { DF_ARGS } from '../volumes.js'

const fixture = (name: string) => readFixture(sourcePath(import.meta.url, `fixtures/${name}`))
const DF = `df ${DF_ARGS.join(' ')}`

t.test('this VM: devtmpfs and tmpfs filtered, the root filesystem kept', async (t) => {
  const driver = await linuxBasic.create(replayContext({ [DF]: { stdout: fixture('df-this-vm.txt') } }))
  const volumes = await driver.listVolumes({ includeWindows: false })
  t.same(volumes, [
    {
      mount_point: '/',
      filesystem: 'ext4',
      size_bytes: 270553174016,
      used_bytes: 23750963200,
      free_bytes: 85193330688,
      status: 'ok',
      source: '/dev/vda',
      windows: false,
    },
  ])
})

t.test('WSL2: the Windows drive only with includeWindows; snap squash mounts never', async (t) => {
  const driver = await linuxBasic.create(replayContext({ [DF]: { stdout: fixture('df-wsl2.txt') } }))
  const without = await driver.listVolumes({ includeWindows: false })
  t.same(
    without.map((v) => v.mount_point),
    ['/'],
  )
  const withWindows = await driver.listVolumes({ includeWindows: true })
  t.same(
    withWindows.map((v) => [v.mount_point, v.filesystem, v.windows]),
    [
      ['/', 'ext4', false],
      ['/mnt/c', '9p', true],
    ],
  )
})

t.test('bind mounts of one source count once; fullness sets the status', async (t) => {
  const df = [
    'Filesystem Type 1B-blocks Used Avail Mounted on',
    '/dev/sdb1 ext4 1000 950 50 /srv/data',
    '/dev/sdb1 ext4 1000 950 50 /srv/data/exports/nfs share',
    '/dev/sdc1 xfs 1000 990 0 /srv/backup',
    '/dev/sdd1 xfs 1000 100 900 /srv/media disk',
  ].join('\n')
  const driver = await linuxBasic.create(replayContext({ [DF]: { stdout: df } }))
  const volumes = await driver.listVolumes({ includeWindows: false })
  t.same(
    volumes.map((v) => [v.mount_point, v.status]),
    [
      ['/srv/backup', 'full'],
      ['/srv/data', 'warning'],
      ['/srv/media disk', 'ok'],
    ],
  )
})

t.test('df exiting 1 for one unreadable mount still reports the others; no rows at all is 503', async (t) => {
  const partial = { stdout: fixture('df-this-vm.txt'), stderr: 'df: /run/user/1000/doc: Operation not permitted\n', code: 1 }
  const driver = await linuxBasic.create(replayContext({ [DF]: partial }))
  t.same(
    (await driver.listVolumes({ includeWindows: false })).map((v) => v.mount_point),
    ['/'],
  )
  const broken = await linuxBasic.create(
    replayContext({ [DF]: { stdout: '', stderr: 'df: cannot read table of mounted file systems\n', code: 1 } }),
  )
  await t.rejects(broken.listVolumes({ includeWindows: false }), { code: 'SERVICE_UNAVAILABLE', message: /cannot read table/ })
})
