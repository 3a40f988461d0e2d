import t from 'tap'
import { createEventBus } from '../../../../core/events.js'
import { createHal } from '../../../../core/hal/registry.js'
import type { FirewallDriver } from '../../driver.js'
import { firewallDrivers } from '../../index.js'
import { context, scriptedRunner, silentLog } from '../../test/context.js'
import noop from '../index.js'

t.test('noop records what it would open, idempotently', async (t) => {
  t.same(await noop.probe(context(async () => ({ code: 0, stdout: '', stderr: '' }))), { supported: true })
  const fw = await noop.create(context(async () => ({ code: 0, stdout: '', stderr: '' })))
  await fw.openPort(53, 'udp')
  await fw.openPort(53, 'tcp')
  await fw.openPort(53, 'udp')
  await fw.openPort(22, 'tcp')
  t.same(await fw.list(), [
    { port: 22, proto: 'tcp' },
    { port: 53, proto: 'tcp' },
    { port: 53, proto: 'udp' },
  ])
  await fw.closePort(53, 'tcp')
  await fw.closePort(53, 'tcp')
  t.same(await fw.list(), [
    { port: 22, proto: 'tcp' },
    { port: 53, proto: 'udp' },
  ])
  await t.rejects(fw.openPort(70000, 'udp'), RangeError)
  t.equal(noop.manifest.priority, 0)
})

t.test('the HAL picks nftables when nft works, noop when it does not', async (t) => {
  const build = (run: ReturnType<typeof scriptedRunner>) => {
    const hal = createHal({ events: createEventBus(() => {}), log: silentLog, dataDir: '/tmp', run, now: Date.now })
    for (const mod of firewallDrivers) hal.register(mod)
    return hal
  }
  const works = build(
    scriptedRunner(t, [
      { args: ['--version'], result: {} },
      { args: ['list', 'tables'], result: {} },
    ]),
  )
  t.equal((await works.detect('firewall')).current, 'nftables')
  t.ok(works.has('firewall.enforced'))
  await works.close()

  const denied = build(
    scriptedRunner(t, [
      { args: ['--version'], result: {} },
      { args: ['list', 'tables'], result: { code: 1, stderr: 'Operation not permitted (you must be root)\n' } },
    ]),
  )
  t.equal((await denied.detect('firewall')).current, 'noop')
  t.notOk(denied.has('firewall.enforced'), 'noop does not claim to enforce')
  t.ok(denied.has('firewall.canOpenPorts'))
  const opened = await denied.with<FirewallDriver, unknown>('firewall', async (fw) => {
    await fw.openPort(53, 'udp')
    return fw.list()
  })
  t.same(opened, [{ port: 53, proto: 'udp' }])
  await denied.close()
})
