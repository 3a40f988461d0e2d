import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { isPrivateAddress, OutboundError, outbound } from '../outbound.js'

/** The outbound rule on its own: which addresses are private, and the check where the socket opens. */
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
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'fc12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::7f00:1',
    'not an address',
  ]
  const publicOnes = ['8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1', '1.1.1.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']
  for (const a of privateOnes) t.equal(isPrivateAddress(a), true, a)
  for (const a of publicOnes) t.equal(isPrivateAddress(a), false, a)
})

t.test('a name resolving to loopback is refused where the socket opens; redirects are checked per hop', async (t) => {
  let hits = 0
  const server = createServer((req, res) => {
    hits++
    if (req.url === '/hop') res.writeHead(302, { location: `http://localhost:${port}/end` }).end()
    else res.end('ok')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const port = (server.address() as AddressInfo).port

  await t.rejects(outbound(`http://localhost:${port}/`, { policy: { allowPrivate: false } }), OutboundError)
  await t.rejects(outbound(`http://127.0.0.1:${port}/`, { policy: { allowPrivate: false } }), OutboundError)
  await t.rejects(outbound(`http://[::ffff:127.0.0.1]:${port}/`, { policy: { allowPrivate: false } }), OutboundError)
  t.equal(hits, 0, 'no request reached the server')

  const allowed = await outbound(`http://localhost:${port}/hop`, { policy: { allowPrivate: true }, headers: { authorization: 'Basic x' } })
  t.equal(allowed.status, 200)
  t.equal(allowed.body.toString(), 'ok')
  t.equal(allowed.url, `http://localhost:${port}/end`)
  const stopped = await outbound(`http://127.0.0.1:${port}/hop`, { policy: { allowPrivate: true }, maxRedirects: 0 })
  t.equal(stopped.status, 302, 'maxRedirects 0 hands back the redirect')
  await t.rejects(outbound(`http://127.0.0.1:${port}/`, { policy: { allowPrivate: true }, maxBytes: 1 }), OutboundError)
})
