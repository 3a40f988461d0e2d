import t from 'tap'
import { runCommand } from '../../../../core/plugin-api.js'
import { context } from '../../test/context.js'
import nftables from '../index.js'

// A real nftables run in a throw-away table (never the daemon's `hearth`), removed afterwards.
const table = `hearth_test_${process.pid}`
const probe = await nftables.probe(context(runCommand))

if (!probe.supported) {
  console.log(`# live nftables test skipped: ${probe.reason}`)
  t.pass(`skipped: ${probe.reason}`)
} else {
  t.teardown(() => runCommand('nft', ['delete', 'table', 'inet', table]))
  t.test('opens, lists and closes ports with the real nft', async (t) => {
    const fw = await nftables.create(context(runCommand, { nftTable: table }))
    t.same(await fw.list(), [], 'nothing before the first open')
    await fw.openPort(53, 'udp')
    await fw.openPort(53, 'tcp')
    await fw.openPort(53, 'tcp')
    t.same(await fw.list(), [
      { port: 53, proto: 'tcp' },
      { port: 53, proto: 'udp' },
    ])
    const ruleset = await runCommand('nft', ['list', 'table', 'inet', table])
    t.match(ruleset.stdout, /type filter hook input priority filter; policy accept;/)
    t.equal(ruleset.stdout.match(/tcp dport 53 accept comment "hearth"/g)?.length, 1, 'no duplicate rule')
    await fw.closePort(53, 'tcp')
    t.same(await fw.list(), [{ port: 53, proto: 'udp' }])
    await fw.closePort(53, 'udp')
    t.same(await fw.list(), [])
  })
}
