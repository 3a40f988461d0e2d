import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runCommand } from '../../../../core/plugin-api.js'
import { silentLog } from '../../test-support/context.js'
import mdadm from '../index.js'

/**
 * The real thing: two sparse files on loop devices, a raid1 created through
 * the driver with the real mdadm, listed, then stopped and detached. Needs
 * a kernel with md; this VM's has none, so it skips with the reason.
 */
const reason = !existsSync('/proc/mdstat')
  ? 'this kernel has no md RAID (/proc/mdstat is missing): pools can only be tested on captured output here'
  : process.getuid?.() !== 0
    ? 'creating md arrays on loop devices needs root'
    : null

if (reason) console.log(`# skipping real mdadm pool test: ${reason}`)

t.test('raid1 on two loop devices through the real mdadm', { skip: reason ?? false }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-md-'))
  const loops: string[] = []
  const run = runCommand
  t.teardown(async () => {
    await run('mdadm', ['--stop', '/dev/md/hearthtest'])
    for (const loop of loops) {
      await run('mdadm', ['--zero-superblock', loop])
      await run('losetup', ['-d', loop])
    }
    rmSync(dir, { recursive: true, force: true })
  })
  for (const n of [1, 2]) {
    const file = join(dir, `disk${n}.img`)
    await run('truncate', ['-s', '64M', file])
    const out = await run('losetup', ['-f', '--show', file])
    loops.push(out.stdout.trim())
  }
  const ctx = { run, log: silentLog, dataDir: dir, now: Date.now, settings: { includeLoopDevices: true } }
  t.equal((await mdadm.probe(ctx)).supported, true)
  const driver = await mdadm.create(ctx)
  const disks = (await driver.listDisks()).filter((d) => loops.includes(d.device))
  t.equal(disks.length, 2)
  const pool = await driver.createPool?.({ name: 'hearthtest', type: 'raid1', diskIds: disks.map((d) => d.id) })
  t.match(pool, { name: 'hearthtest', type: 'raid1' })
  const listed = await driver.listPools()
  t.ok(listed.some((p) => p.name === 'hearthtest'))
})
