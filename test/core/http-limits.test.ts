import t from 'tap'
import { build, owner } from '../helper.js'
import { listening, rawSocket, requestFrom } from '../net-client.js'

/**
 * What one client may hold of the daemon over HTTP: a trickled body (one byte every few seconds held a
 * connection for good; Fastify turns Node's request timeout off) is cut off with 408, and a client opens
 * at most HEARTH_MAX_CONNECTIONS_PER_CLIENT connections (it opened as many as it liked). Meanwhile
 * everyone else is served: /health is asserted to answer at all during each attack (an availability
 * bound, not a benchmark).
 */

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Resolves true if `closed` settles within `ms`: a bound on a hang, generous enough for a loaded machine. */
const within = (closed: Promise<void>, ms: number) => Promise.race([closed.then(() => true), settle(ms).then(() => false)])
/** Polls `count` until it reaches `expected` or `ms` pass, and returns its last value. */
async function settlesAt(count: () => number, expected: number, ms = 10_000): Promise<number> {
  const until = Date.now() + ms
  while (count() !== expected && Date.now() < until) await settle(50)
  return count()
}

t.test('a body trickled one byte at a time is cut off with 408; a slow but steady one is read', async (t) => {
  const app = await build(t, { env: { HEARTH_DISABLED_PLUGINS: 'proxy' } })
  const o = await owner(app)
  const port = await listening(app)

  const slow = await rawSocket(port, '127.0.0.6')
  let answer = ''
  slow.on('data', (c: Buffer) => (answer += c.toString('latin1')))
  slow.write(
    `POST /api/v1/notes HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer ${o.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
  )
  const trickle = setInterval(() => slow.write('a'), 2000)
  t.teardown(() => clearInterval(trickle))

  // A legitimate slow upload beside it: 2 KiB a second for 12 s.
  const steady = await rawSocket(port, '127.0.0.7')
  let steadyAnswer = ''
  steady.on('data', (c: Buffer) => (steadyAnswer += c.toString('latin1')))
  const body = Buffer.from(JSON.stringify({ title: 'slow', content: 'x'.repeat(24 * 1024) }))
  steady.write(
    `POST /api/v1/notes HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer ${o.token}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`,
  )
  let sent = 0
  const pump = setInterval(() => {
    const piece = body.subarray(sent, sent + 2048)
    sent += piece.length
    if (piece.length) steady.write(piece)
    else clearInterval(pump)
  }, 1000)
  t.teardown(() => clearInterval(pump))

  await settle(3000)
  t.equal((await requestFrom(port, '127.0.0.8', 'GET', '/api/v1/health')).status, 200, '/health answers during the attack')

  t.ok(await within(slow.gone, 40_000), 'the trickled body is cut off (it was held for good)')
  clearInterval(trickle)
  t.match(answer, /^HTTP\/1\.1 408 /, 'with 408, as Node answers its own request timeout')

  t.ok(await within(steady.gone, 40_000), 'the steady upload finishes')
  t.match(steadyAnswer, /^HTTP\/1\.1 201 /, 'and is stored')
})

t.test('an over-limit body is still drained and answered 413 under these limits', async (t) => {
  const app = await build(t, { env: { HEARTH_DISABLED_PLUGINS: 'proxy' } })
  const o = await owner(app)
  const port = await listening(app)
  const res = await requestFrom(port, '127.0.0.9', 'POST', '/api/v1/notes', {
    headers: { authorization: `Bearer ${o.token}` },
    body: { title: 'big', content: 'x'.repeat(2 * 1024 * 1024) },
  })
  t.equal(res.status, 413)
  t.match(res.body, /PAYLOAD_TOO_LARGE/)
})

t.test('one client holds at most HEARTH_MAX_CONNECTIONS_PER_CLIENT connections', async (t) => {
  const app = await build(t, { env: { HEARTH_DISABLED_PLUGINS: 'proxy', HEARTH_MAX_CONNECTIONS_PER_CLIENT: '8' } })
  const port = await listening(app)
  const sockets = await Promise.all(Array.from({ length: 40 }, () => rawSocket(port, '127.0.0.3')))
  t.teardown(() => sockets.forEach((s) => s.destroy()))
  const stillOpen = () => sockets.filter((s) => !s.destroyed).length
  t.equal(await settlesAt(stillOpen, 8), 8, 'eight stay open, the other 32 are closed at once (all 40 stayed open)')
  await settle(300)
  t.equal(stillOpen(), 8, 'and the eight are kept')
  const open = sockets.filter((s) => !s.destroyed)
  t.equal((await requestFrom(port, '127.0.0.4', 'GET', '/api/v1/health')).status, 200, 'another client is served meanwhile')
  t.match((await requestFrom(port, '127.0.0.3', 'GET', '/api/v1/health')).status, /^error/, 'a ninth from the same client is refused')

  for (const s of open.slice(0, 2)) s.destroy()
  await Promise.all(open.slice(0, 2).map((s) => s.gone))
  await settle(100)
  t.equal((await requestFrom(port, '127.0.0.3', 'GET', '/api/v1/health')).status, 200, 'a closed connection frees its slot')
})

t.test('a trusted proxy is not capped: every client behind it shares its address', async (t) => {
  const app = await build(t, { env: { HEARTH_TRUSTED_PROXIES: '127.0.0.10', HEARTH_MAX_CONNECTIONS_PER_CLIENT: '4' } })
  const port = await listening(app)
  const sockets = await Promise.all(Array.from({ length: 12 }, () => rawSocket(port, '127.0.0.10')))
  t.teardown(() => sockets.forEach((s) => s.destroy()))
  await settle(500)
  t.equal(sockets.filter((s) => !s.destroyed).length, 12)
})

t.test('a body the daemon could not read while its own loop was held is not cut off as slow', async (t) => {
  const app = await build(t, { env: { HEARTH_DISABLED_PLUGINS: 'proxy' } })
  const o = await owner(app)
  const port = await listening(app)
  const client = await rawSocket(port, '127.0.0.10')
  let answer = ''
  client.on('data', (c: Buffer) => (answer += c.toString('latin1')))
  const body = Buffer.from(JSON.stringify({ title: 'sent while the daemon was busy', content: 'x'.repeat(4096) }))
  client.write(
    `POST /api/v1/notes HTTP/1.1\r\nHost: hearth\r\nAuthorization: Bearer ${o.token}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n`,
  )
  await settle(300)
  // The daemon holds its loop past the body window (as a large import on a busy machine does): the body
  // waits unread in the kernel meanwhile. Held in the check phase, as work done on a socket's data is,
  // the timers run before the next read: the body used to be cut off with 408 then (this test failed so on that code).
  await new Promise<void>((resolve) =>
    setImmediate(() => {
      client.write(body)
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 11_000)
      resolve()
    }),
  )
  t.ok(await within(client.gone, 40_000), 'the request is answered')
  t.match(answer, /^HTTP\/1\.1 201 /, 'and the note is stored')
})
