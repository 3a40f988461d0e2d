import t from 'tap'
import { addressPrefix } from '../../lib/ip-prefix.js'

const CLIENT = { v4: 32, v6: 64 }

t.test('an IPv6 address counts as its /64, an IPv4 one as itself', async (t) => {
  t.equal(addressPrefix('2001:db8:1:2:aaaa:bbbb:cccc:dddd', CLIENT), '2001:db8:1:2::/64')
  t.equal(addressPrefix('2001:db8:1:2::1', CLIENT), addressPrefix('2001:0db8:0001:0002:ffff::9', CLIENT), 'spelling does not matter')
  t.not(addressPrefix('2001:db8:1:2::1', CLIENT), addressPrefix('2001:db8:1:3::1', CLIENT), 'the next /64 is another client')
  t.equal(addressPrefix('192.0.2.7', CLIENT), '192.0.2.7/32')
  t.not(addressPrefix('192.0.2.7', CLIENT), addressPrefix('192.0.2.8', CLIENT))
  t.equal(addressPrefix('::ffff:192.0.2.7', CLIENT), '192.0.2.7/32', 'an IPv4-mapped address is its IPv4 address')
  t.equal(addressPrefix('fe80::1%eth0', CLIENT), 'fe80:0:0:0::/64', 'a zone id is ignored')
  t.equal(addressPrefix('::1', CLIENT), '0:0:0:0::/64')
})

t.test('other widths: a /24 and a /56', async (t) => {
  const bits = { v4: 24, v6: 56 }
  t.equal(addressPrefix('192.0.2.200', bits), '192.0.2.0/24')
  t.equal(addressPrefix('2001:db8:1:2ff::1', bits), '2001:db8:1:200::/56')
  t.equal(addressPrefix('2001:db8:1:2ff::1', { v4: 32, v6: 128 }), '2001:db8:1:2ff:0:0:0:1/128')
})

t.test('what is not an address is returned unchanged, never throws', async (t) => {
  for (const junk of ['', 'banana', '1.2.3', '::g', 'unix:/run/x.sock', '1.2.3.4.5', ':::'])
    t.equal(addressPrefix(junk, CLIENT), junk, JSON.stringify(junk))
})
