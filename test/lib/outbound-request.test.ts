import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { OutboundError } from '../../lib/outbound-address.js'
import { outbound } from '../../lib/outbound-request.js'

/** Requests through the outbound-address policy: refused where the socket opens, per redirect hop, within a byte limit. */
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
  await t.rejects(outbound(`http://[::127.0.0.1]:${port}/`, { policy: { allowPrivate: false } }), OutboundError)
  t.equal(hits, 0, 'no request reached the server')

  const allowed = await outbound(`http://localhost:${port}/hop`, { policy: { allowPrivate: true }, headers: { authorization: 'Basic x' } })
  t.equal(allowed.status, 200)
  t.equal(allowed.body.toString(), 'ok')
  t.equal(allowed.url, `http://localhost:${port}/end`)
  const stopped = await outbound(`http://127.0.0.1:${port}/hop`, { policy: { allowPrivate: true }, maxRedirects: 0 })
  t.equal(stopped.status, 302, 'maxRedirects 0 hands back the redirect')
  await t.rejects(outbound(`http://127.0.0.1:${port}/`, { policy: { allowPrivate: true }, maxBytes: 1 }), OutboundError)
})
