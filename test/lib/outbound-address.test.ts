import t from 'tap'
import { checkTarget, isPrivateAddress } from '../../lib/outbound-address.js'

/** The outbound-address policy on its own: which addresses are private, in every spelling, and how a URL is judged. */
t.test('private and public addresses', async (t) => {
  const privateOnes = [
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '224.0.0.251',
    '255.255.255.255',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.9',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fd00::1',
    'fc12:3456::1',
    'fec0::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '0:0:0:0:0:ffff:a9fe:a9fe',
    // IPv4-compatible: deprecated, and what the guard let through.
    '::127.0.0.1',
    '::7f00:1',
    '::10.0.0.1',
    '::8.8.8.8',
    '::ffff:0:7f00:1',
    // NAT64 of private IPv4, and the local-use NAT64 prefix.
    '64:ff9b::7f00:1',
    '64:ff9b::10.0.0.1',
    '64:ff9b:1::8.8.8.8',
    // 6to4 of private IPv4; Teredo.
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:db8::1',
    'not an address',
    '',
  ]
  const publicOnes = [
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '1.1.1.1',
    '2001:4860:4860::8888',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ]
  for (const a of privateOnes) t.equal(isPrivateAddress(a), true, a)
  for (const a of publicOnes) t.equal(isPrivateAddress(a), false, a)
})

t.test('a URL is judged by its form and by every address it is', async (t) => {
  const refuse = { allowPrivate: false }
  t.same(await checkTarget('http://[::127.0.0.1]:5232/', refuse), { problem: 'private_address' })
  t.same(await checkTarget('http://[::ffff:7f00:1]/', refuse), { problem: 'private_address' })
  t.same(await checkTarget('http://localhost/', refuse), { problem: 'private_address' })
  t.same(await checkTarget('http://0x7f000001/', refuse), { problem: 'private_address' }, 'URL parsing turns 0x7f000001 into 127.0.0.1')
  t.same(await checkTarget('http://2130706433/', refuse), { problem: 'private_address' })
  t.same(await checkTarget('ftp://example.test/', refuse), { problem: 'format' })
  t.same(await checkTarget('http://user:pw@example.test/', refuse), { problem: 'format' })
  t.same(await checkTarget('not a url', refuse), { problem: 'format' })
  const allowed = await checkTarget('http://[::127.0.0.1]:5232/', { allowPrivate: true })
  t.ok('url' in allowed && allowed.url.port === '5232', 'an admin may reach the local network')
  const pub = await checkTarget('http://8.8.8.8/hook', refuse)
  t.ok('url' in pub, 'a public literal passes without a lookup')
})
