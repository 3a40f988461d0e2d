import t from 'tap'
import { embeddedIPv4, ipv6Bytes, mappedIPv4, unmapped } from '../../lib/ip-address.js'

/** IPv6 text read one way for the outbound policy and the client prefixes alike. */
const bytes = (address: string) => {
  const b = ipv6Bytes(address)
  return b && Array.from(b)
}

t.test('IPv6 text to bytes: compressed, full and dotted forms agree', async (t) => {
  const loopbackV4 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 127, 0, 0, 1]
  t.same(bytes('::127.0.0.1'), loopbackV4)
  t.same(bytes('::7f00:1'), loopbackV4)
  t.same(bytes('0:0:0:0:0:0:127.0.0.1'), loopbackV4)
  t.same(bytes('1:2:3:4:5:6:7:8'), [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8])
  t.equal(ipv6Bytes('127.0.0.1'), null)
})

t.test('the IPv4 address an IPv6 form carries: mapped for client prefixes, also NAT64 and 6to4 for the outbound policy', async (t) => {
  t.equal(unmapped('::ffff:127.0.0.1'), '127.0.0.1')
  t.equal(unmapped('::ffff:1:2'), '::ffff:1:2', 'not a mapped IPv4 address')
  t.equal(unmapped('::1'), '::1')
  t.equal(unmapped('banana'), 'banana')
  const of = (address: string) => [mappedIPv4(ipv6Bytes(address)!), embeddedIPv4(ipv6Bytes(address)!)]
  t.same(of('::ffff:7f00:1'), ['127.0.0.1', '127.0.0.1'])
  t.same(of('64:ff9b::10.0.0.1'), [null, '10.0.0.1'])
  t.same(of('2002:c0a8:101::1'), [null, '192.168.1.1'])
  t.same(of('2001:db8::1'), [null, null])
})
