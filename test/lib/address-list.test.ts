import t from 'tap'
import { LOOPBACK, parseAddressList } from '../../lib/address-list.js'

const listOf = (entries: string[]) => {
  const parsed = parseAddressList(entries)
  if ('problem' in parsed) throw new Error(parsed.problem)
  return parsed.list
}

t.test('addresses and networks of both families', async (t) => {
  const list = listOf(['192.0.2.7', '10.0.0.0/8', 'fd00::/8', '2001:db8::1'])
  t.ok(list.has('192.0.2.7'))
  t.notOk(list.has('192.0.2.8'))
  t.ok(list.has('10.200.3.4'))
  t.ok(list.has('::ffff:10.1.1.1'), 'an IPv4-mapped peer is its IPv4 address')
  t.ok(list.has('fd12:3456::1'))
  t.ok(list.has('2001:db8::1'))
  t.notOk(list.has('2001:db8::2'))
  t.notOk(list.has('not an address'))
  t.same(list.entries, ['192.0.2.7', '10.0.0.0/8', 'fd00::/8', '2001:db8::1'])
})

t.test('loopback is 127.0.0.0/8 and ::1', async (t) => {
  const list = listOf(LOOPBACK)
  for (const a of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) t.ok(list.has(a), a)
  for (const a of ['192.168.1.2', '::2', '128.0.0.1']) t.notOk(list.has(a), a)
  t.notOk(listOf([]).has('127.0.0.1'), 'an empty list trusts nobody')
})

t.test('a typo is a problem, not a silently different list', async (t) => {
  for (const bad of ['loopback', '10.0.0.0/33', '::1/129', '1.2.3.4/', '1.2.3.4/8/1', 'fd00::/x', '300.1.1.1']) {
    const parsed = parseAddressList(['127.0.0.1', bad])
    t.ok('problem' in parsed && parsed.problem.includes(bad), bad)
  }
})
