import { readFileSync } from 'node:fs'
import t from 'tap'
import { HttpError, ToolMissingError } from '../../../../core/plugin-api.js'
import { sourcePath } from '../../../../test/paths.js'
import { context, scriptedRunner } from '../../test/context.js'
import nftables from '../index.js'

const fixture = (name: string) => readFileSync(sourcePath(import.meta.url, `fixtures/${name}`), 'utf8')
const VERSION = { stdout: fixture('version.txt') }
const MISSING = { code: 1, stderr: fixture('list-missing.stderr') }
const PORTS = { stdout: fixture('list-ports.json') }
const EMPTY = { stdout: fixture('list-empty.json') }

const ADD_TABLE = ['add', 'table', 'inet', 'hearth']
const ADD_CHAIN = [
  'add',
  'chain',
  'inet',
  'hearth',
  'input',
  '{',
  'type',
  'filter',
  'hook',
  'input',
  'priority',
  '0',
  ';',
  'policy',
  'accept',
  ';',
  '}',
]
const LIST = ['-j', 'list', 'chain', 'inet', 'hearth', 'input']

t.test('probe: supported only when nft runs and can list tables', async (t) => {
  const ok = scriptedRunner(t, [
    { args: ['--version'], result: VERSION },
    { args: ['list', 'tables'], result: {} },
  ])
  t.same(await nftables.probe(context(ok)), { supported: true })
  t.same(ok.calls, [['--version'], ['list', 'tables']])

  const denied = scriptedRunner(t, [
    { args: ['--version'], result: VERSION },
    { args: ['list', 'tables'], result: { code: 1, stderr: fixture('list-tables-denied.stderr') } },
  ])
  const no = await nftables.probe(context(denied))
  t.same(no, {
    supported: false,
    reason: 'nft list tables failed (needs root or CAP_NET_ADMIN): Operation not permitted (you must be root)',
  })

  const missing = scriptedRunner(t, [{ args: ['--version'], result: new ToolMissingError('nft') }])
  t.same(await nftables.probe(context(missing)), { supported: false, reason: 'nft is not installed' })
  t.equal(nftables.manifest.priority, 10)
})

t.test('openPort creates table and chain, then one accept rule', async (t) => {
  const run = scriptedRunner(t, [
    { args: ADD_TABLE, result: {} },
    { args: ADD_CHAIN, result: {} },
    { args: LIST, result: EMPTY },
    { args: ['add', 'rule', 'inet', 'hearth', 'input', 'udp', 'dport', '53', 'accept', 'comment', '"hearth"'], result: {} },
  ])
  const fw = await nftables.create(context(run))
  await fw.openPort(53, 'udp')
  t.equal(run.calls.length, 4, 'exactly the four commands')
})

t.test('openPort of an open port adds nothing', async (t) => {
  const run = scriptedRunner(t, [
    { args: ADD_TABLE, result: {} },
    { args: ADD_CHAIN, result: {} },
    { args: LIST, result: PORTS },
  ])
  const fw = await nftables.create(context(run))
  await fw.openPort(53, 'tcp')
  t.equal(run.calls.length, 3)
})

t.test('closePort deletes our rule by handle; closing a closed port is a no-op', async (t) => {
  const run = scriptedRunner(t, [
    { args: LIST, result: PORTS },
    { args: ['delete', 'rule', 'inet', 'hearth', 'input', 'handle', '3'], result: {} },
    { args: LIST, result: MISSING },
  ])
  const fw = await nftables.create(context(run))
  await fw.closePort(53, 'tcp')
  await fw.closePort(53, 'tcp')
  t.equal(run.calls.length, 3)
})

t.test('list reports our port rules only, sorted; nothing before the table exists', async (t) => {
  const run = scriptedRunner(t, [
    { args: LIST, result: PORTS },
    { args: LIST, result: MISSING },
  ])
  const fw = await nftables.create(context(run))
  t.same(
    await fw.list(),
    [
      { port: 53, proto: 'tcp' },
      { port: 53, proto: 'udp' },
      { port: 8443, proto: 'tcp' },
    ],
    'the hand-added `ip saddr` rule is not a port',
  )
  t.same(await fw.list(), [])
})

t.test('nft refusing is a 503 with its message; bad input never reaches nft', async (t) => {
  const run = scriptedRunner(t, [
    { args: ADD_TABLE, result: { code: 1, stderr: 'netlink: Error: cache initialization failed: Operation not permitted\n' } },
  ])
  const fw = await nftables.create(context(run))
  const err = await fw.openPort(53, 'udp').catch((e: unknown) => e)
  t.ok(err instanceof HttpError)
  t.equal((err as HttpError).code, 'SERVICE_UNAVAILABLE')
  t.match((err as Error).message, /nft add table failed: netlink: Error: cache initialization failed/)
  await t.rejects(fw.openPort(0, 'udp'), RangeError)
  await t.rejects(fw.openPort(53, 'icmp' as 'udp'), RangeError)
  t.equal(run.calls.length, 1)
})

t.test('settings pick the table; a bad table name is refused', async (t) => {
  const run = scriptedRunner(t, [{ args: ['-j', 'list', 'chain', 'inet', 'other', 'input'], result: EMPTY }])
  const fw = await nftables.create(context(run, { nftTable: 'other' }))
  t.same(await fw.list(), [])
  await t.rejects(nftables.create(context(run, { nftTable: 'x; flush ruleset' })), RangeError)
})

t.test('concurrent calls are serialised: no duplicate rule', async (t) => {
  const run = scriptedRunner(t, [
    { args: ADD_TABLE, result: {} },
    { args: ADD_CHAIN, result: {} },
    { args: LIST, result: EMPTY },
    { args: ['add', 'rule', 'inet', 'hearth', 'input', 'tcp', 'dport', '53', 'accept', 'comment', '"hearth"'], result: {} },
    { args: ADD_TABLE, result: {} },
    { args: ADD_CHAIN, result: {} },
    { args: LIST, result: PORTS },
  ])
  const fw = await nftables.create(context(run))
  await Promise.all([fw.openPort(53, 'tcp'), fw.openPort(53, 'tcp')])
  t.equal(run.calls.length, 7)
})
