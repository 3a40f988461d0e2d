import { type IncomingHttpHeaders, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { connect } from 'node:net'
import { definePlugin } from '../../core/plugin-api.js'
import realtime from '../../plugins/realtime/index.js'
import records from '../../plugins/records/index.js'
import { auth, build, owner } from '../helper.js'

/**
 * HEAD answers as GET does (Fastify's HEAD route beside each GET route). Over real HTTP, where Node
 * decides that a HEAD answer has no body: the GET's status and headers (content-length included), no
 * body; the same 401 and 404; an asset; a route declaring HEAD itself keeps it; metrics count HEAD as HEAD.
 */
interface Answer {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
}

function call(port: number, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** Headers that differ between any two answers. */
const stable = (h: IncomingHttpHeaders) => {
  const { date: _date, 'x-request-id': _id, ...rest } = h
  return rest
}

t.test('HEAD answers as GET does, without a body', async (t) => {
  const probe = definePlugin({ name: 'probe', version: '1.0.0', apiVersion: '^1.0.0' }, async (app) => {
    // HEAD first: Fastify's own HEAD route for a GET is made only where none is declared before it.
    app.head('/both', { config: { auth: false, envelope: 'none' } }, async (_req, reply) =>
      reply.header('x-answered-by', 'head').type('text/plain').send(),
    )
    app.get('/both', { config: { auth: false, envelope: 'none' } }, async (_req, reply) => reply.type('text/plain').send('from GET'))
    app.get('/empty', { config: { auth: false, envelope: 'none' } }, async (_req, reply) => reply.send())
  })
  const app = await build(t, { plugins: [records, probe] })
  const token = (await owner(app)).token
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const created = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth(token), payload: { content: 'hello' } })
  const id = created.json().data.id as string

  const same = async (path: string, headers: Record<string, string>, what: string) => {
    const get = await call(port, 'GET', path, headers)
    const head = await call(port, 'HEAD', path, headers)
    t.equal(head.status, get.status, `${what}: the GET's status`)
    t.same(stable(head.headers), stable(get.headers), `${what}: the GET's headers`)
    t.equal(head.headers['content-length'], String(get.body.length), `${what}: content-length of the GET's body`)
    t.equal(head.body.length, 0, `${what}: no body`)
    return head
  }

  const note = await same(`/api/v1/notes/${id}`, auth(token), 'a JSON route')
  t.equal(note.status, 200)
  t.match(note.headers['content-type'], /^application\/json/)
  t.ok(note.headers.etag, 'with its validator')

  const doc = await same('/api/v1/docs/json', {}, 'a public route')
  t.equal(doc.status, 200)
  const health = await call(port, 'HEAD', '/api/v1/health')
  t.equal(health.status, 200, 'the public health route')
  t.ok(Number(health.headers['content-length']) > 0)
  t.equal(health.body.length, 0)

  const css = await same('/api/v1/docs/static/swagger-ui.css', {}, 'an asset')
  t.equal(css.status, 200)
  t.match(css.headers['content-type'], /^text\/css/)

  const denied = await same('/api/v1/notes', {}, 'no token')
  t.equal(denied.status, 401)

  const empty = await same('/api/v1/probe/empty', {}, 'a route sending nothing')
  t.equal(empty.headers['content-length'], '0')

  // The 404 message names the method as sent: the length is that of HEAD's envelope.
  const missing = await call(port, 'HEAD', '/api/v1/nothing-here')
  t.equal(missing.status, 404)
  t.match(missing.headers['content-type'], /^application\/json/)
  const envelope = JSON.stringify({ error: { code: 'NOT_FOUND', message: 'Route HEAD /api/v1/nothing-here not found' } })
  t.equal(missing.headers['content-length'], String(Buffer.byteLength(envelope)))
  t.equal(missing.body.length, 0)
  const postOnly = await call(port, 'HEAD', '/api/v1/auth/setup')
  t.equal(postOnly.status, 404, 'a path with no GET route: 404 as before')

  const declared = await call(port, 'HEAD', '/api/v1/probe/both')
  t.equal(declared.headers['x-answered-by'], 'head', "a route declaring HEAD answers HEAD, not the GET's handler")

  const viaInject = await app.inject({ method: 'HEAD', url: `/api/v1/notes/${id}`, headers: auth(token) })
  t.equal(viaInject.statusCode, 200, 'inject answers HEAD the same way')
  t.equal(viaInject.body, '')

  const metrics = await app.inject({ method: 'GET', url: '/metrics' })
  t.match(
    metrics.body,
    /hearth_http_requests_total\{method="HEAD",route="\/api\/v1\/notes\/:id",status="200"\} 2/,
    'metrics count HEAD requests as HEAD',
  )
  t.match(metrics.body, /method="HEAD",route="unmatched",status="404"/)
})

t.test('a HEAD asking for a WebSocket upgrade is not upgraded (RFC 6455: the handshake is a GET)', async (t) => {
  const app = await build(t, { plugins: [records, realtime] })
  const token = (await owner(app)).token
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const statusLine = (method: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          `${method} /api/v1/ws HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade\r\n` +
            'Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
        ),
      )
      socket.once('data', (chunk: Buffer) => {
        resolve(chunk.toString('latin1').split('\r\n')[0] as string)
        socket.destroy()
      })
      socket.once('close', () => resolve('closed without an answer'))
      socket.on('error', reject)
    })
  const head = await statusLine('HEAD')
  // (A GET with these headers upgrades: plugins/realtime/test.)
  t.match(head, /^HTTP\/1\.1 4\d\d /, 'a HEAD with the same headers is refused, not upgraded')
})
