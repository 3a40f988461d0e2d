import { type AddressInfo, connect } from 'node:net'
import t from 'tap'
import { addUser, auth, owner, type TestApp } from '../../../test/helper.js'
import { listening, refusedStatus, TestClient } from './ws-client.js'

const clientsConnected = async (app: TestApp) =>
  (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.realtime.message as string

/** Lets queued socket I/O run (the app and the clients share this process). */
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('a bad or missing token refuses the upgrade with 401; header and ?token= both work', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  for (const [what, target, headers] of [
    ['no token', url, {}],
    ['bad JWT in header', url, auth('not.a.jwt')],
    ['bad ?token=', `${url}?token=garbage`, {}],
    ['revoked-looking API key', `${url}?token=clk_${'0'.repeat(32)}`, {}],
  ] as const) {
    const refused = await refusedStatus(target, headers)
    t.equal(refused.status, 401, what)
    t.equal(JSON.parse(refused.body).error.code, 'UNAUTHORIZED', what)
  }
  const viaHeader = await TestClient.open(url, auth(o.token))
  const viaQuery = await TestClient.open(`${url}?token=${encodeURIComponent(o.token)}`)
  t.match(viaHeader.messages[0].data, { user_id: o.userId, subscribe: ['*'], seq: Number, replay: 0 })
  t.equal(viaQuery.messages[0].type, 'ready')
  t.equal(await clientsConnected(app), '2 clients connected')
  viaHeader.close()
  viaQuery.close()

  const plain = await app.inject({ method: 'GET', url: '/api/v1/ws', headers: auth(o.token) })
  t.equal(plain.statusCode, 426, 'plain HTTP GET is told to upgrade')
  t.equal(plain.json().error.code, 'UPGRADE_REQUIRED')
})

t.test('a client receives its own user events only, in the spec message shape', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  const other = await addUser(app, o.token)
  const mine = await TestClient.open(url, auth(o.token))
  const theirs = await TestClient.open(url, auth(other.token))

  app.hearth.events.emit('note.created', { userId: other.userId, id: 'n-1', data: { id: 'n-1', title: 'theirs' } })
  app.hearth.events.emit('note.created', { userId: o.userId, id: 'n-2', data: { id: 'n-2', title: 'mine' } })
  const got = await mine.next((m) => m.type === 'note.created')
  t.match(got, { type: 'note.created', id: 'n-2', data: { id: 'n-2', title: 'mine' } })
  t.ok(!Number.isNaN(Date.parse(got.at)), 'at is a timestamp')
  await theirs.next((m) => m.type === 'note.created')
  t.same(
    mine.of('note.created').map((m) => m.id),
    ['n-2'],
    'never sees another user event',
  )
  t.same(
    theirs.of('note.created').map((m) => m.id),
    ['n-1'],
  )
  mine.close()
  theirs.close()
})

t.test('subscribe narrows the stream; bad subscribe messages get an error and change nothing', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  const c = await TestClient.open(url, auth(o.token))
  for (const bad of ['nope', ['note..*'], [1], ['NOTE.*'], Array(65).fill('note.*')]) {
    const answer = await c.subscribe(bad)
    t.equal(answer.type, 'error', JSON.stringify(bad).slice(0, 40))
    t.equal(answer.data.code, 'VALIDATION_ERROR')
    t.ok(answer.data.details.field.startsWith('subscribe'))
  }
  c.ws.send('{not json')
  t.match((await c.next((m) => m.type === 'error' && m.data.details.constraint === 'json')).data, { code: 'VALIDATION_ERROR' })

  const ok = await c.subscribe(['note.*', 'event.created', 'dns.*'])
  t.same(ok.data.subscribe, ['note.*', 'event.created', 'dns.*'])
  const emit = (type: string) => app.hearth.events.emit(type, { userId: o.userId, id: type, data: { id: type } })
  for (const type of [
    'note.updated',
    'contact.created',
    'event.updated',
    'event.created',
    'dns.record.created',
    'notes.created',
    'note.deleted',
  ]) {
    emit(type)
  }
  await c.next((m) => m.type === 'note.deleted')
  t.same(
    c.messages.filter((m) => m.id !== null).map((m) => m.type),
    ['note.updated', 'event.created', 'dns.record.created', 'note.deleted'],
  )
  c.close()
})

t.test('system-wide events (no user) reach admins and owners only', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  const user = await addUser(app, o.token)
  const admin = await addUser(app, o.token, { role: 'admin' })
  const clients = await Promise.all([o, user, admin].map((u) => TestClient.open(url, auth(u.token))))
  app.hearth.events.emit('dns.server.restarted', { userId: null, data: { port: 5353 } })
  app.hearth.events.emit('note.created', { userId: user.userId, id: 'marker', data: {} })
  await clients[1].next((m) => m.id === 'marker')
  await clients[0].next((m) => m.type === 'dns.server.restarted')
  await clients[2].next((m) => m.type === 'dns.server.restarted')
  t.equal(clients[1].of('dns.server.restarted').length, 0, 'a plain user does not see system events')
  for (const c of clients) c.close()
})

t.test('a client that never reads is dropped on overflow and never slows writers or other clients', async (t) => {
  const { app, url } = await listening(t, { env: { HEARTH_WS_MAX_BUFFER_BYTES: String(64 * 1024) } })
  const o = await owner(app)
  const stuck = await TestClient.open(url, auth(o.token))
  const healthy = await TestClient.open(url, auth(o.token))
  ;(stuck.ws as unknown as { _socket: { pause(): void } })._socket.pause()

  const content = 'lorem ipsum dolor sit amet '.repeat(2400) // ~64 KB per note event
  const total = 300 // ~19 MB: far beyond loopback socket buffers plus the 64 KiB limit
  const started = Date.now()
  let lastId = ''
  const failedWrites: number[] = []
  for (let i = 0; i < total; i++) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth(o.token), payload: { title: `n${i}`, content } })
    if (res.statusCode !== 201) failedWrites.push(res.statusCode)
    else lastId = res.json().data.id
  }
  t.same(failedWrites, [], 'every write succeeded')
  const writerMs = Date.now() - started
  await healthy.next((m) => m.id === lastId, 10_000)
  t.equal(healthy.of('note.created').length, total, 'the healthy client got every event')
  t.equal(await clientsConnected(app), '1 clients connected', 'the stuck client was dropped')
  t.ok(writerMs < 30_000, `writes never waited for the stuck reader (${writerMs} ms for ${total} writes)`)

  ;(stuck.ws as unknown as { _socket: { resume(): void } })._socket.resume()
  await stuck.closed()
  t.ok(stuck.of('note.created').length < total, `the stuck client got only what was buffered (${stuck.of('note.created').length})`)
  healthy.close()
})

t.test('heartbeat: a client that stops answering pings is closed', async (t) => {
  // A second between pings: the answering client shares this process, and a CI machine whose cores are
  // all taken can hold the loop past a shorter interval (at 150 ms the answering client was dropped too).
  const { app, url } = await listening(t, { env: { HEARTH_WS_PING_INTERVAL_MS: '1000' } })
  const o = await owner(app)
  const dead = await TestClient.open(url, auth(o.token))
  const live = await TestClient.open(url, auth(o.token))
  ;(dead.ws as unknown as { _socket: { pause(): void } })._socket.pause()
  let connected = await clientsConnected(app)
  for (let i = 0; i < 100 && connected !== '1 clients connected'; i++) {
    await tick(200)
    connected = await clientsConnected(app)
  }
  t.equal(connected, '1 clients connected', 'the silent client is gone, the answering one stays')
  t.equal(live.ws.readyState, live.ws.OPEN)
  ;(dead.ws as unknown as { _socket: { resume(): void } })._socket.resume()
  await dead.closed()
  live.close()
})

t.test('closing the app closes every client with 1001', async (t) => {
  const { app, url } = await listening(t)
  const o = await owner(app)
  const c = await TestClient.open(url, auth(o.token))
  const code = c.closed()
  await app.close()
  t.equal(await code, 1001)
})

t.test('a socket whose user is disabled is closed with 4401 at the next heartbeat', async (t) => {
  const { app, url } = await listening(t, { env: { HEARTH_WS_PING_INTERVAL_MS: '150' } })
  const o = await owner(app)
  const user = await addUser(app, o.token)
  const doomed = await TestClient.open(`${url}?token=${user.token}`)
  const kept = await TestClient.open(url, auth(o.token))
  const code = doomed.closed()
  const res = await app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${user.userId}`,
    headers: auth(o.token),
    payload: { disabled: true },
  })
  t.equal(res.statusCode, 200)
  t.equal(await code, 4401)
  await tick(400)
  t.equal(kept.ws.readyState, kept.ws.OPEN, 'other sockets stay open')
  kept.close()
})

t.test('upgrade requests to other paths get their HTTP answer and the socket is closed', async (t) => {
  const { app } = await listening(t)
  const port = (app.server.address() as AddressInfo).port
  const socket = connect(port, '127.0.0.1')
  let answer = ''
  socket.on('data', (d) => (answer += d))
  socket.write(
    'GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  )
  const started = Date.now()
  await new Promise((resolve) => socket.once('close', resolve))
  t.match(answer, /^HTTP\/1\.1 200/)
  t.ok(Date.now() - started < 5000, `closed by the server after ${Date.now() - started} ms`)
})
