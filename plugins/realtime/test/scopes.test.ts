import t from 'tap'
import { addUser, apiKey, auth, owner } from '../../../test/helper.js'
import { listening, TestClient } from './ws-client.js'

/**
 * Who receives which event: a key sees what its scope reads over REST, a role
 * change or a revoked key takes effect on a live connection at once, and no subscribe filter shows
 * one user another's events.
 */
const env = { HEARTH_DNS_PORT: '0' }

const tick = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('a sync key receives record events only; an agent key its DNS events too', async (t) => {
  const { app, url } = await listening(t, { env })
  const o = await owner(app)
  const sync = await TestClient.open(url, auth(await apiKey(app, o.token, { scope: 'sync' })))
  const agent = await TestClient.open(url, auth(await apiKey(app, o.token, { scope: 'agent' })))
  const zone = await app.inject({
    method: 'POST',
    url: '/api/v1/dns/zones',
    headers: auth(o.token),
    payload: { zone: 'home.test', mode: 'authoritative' },
  })
  t.equal(zone.statusCode, 201)
  await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth(o.token), payload: { content: 'hello' } })
  await agent.next((m) => m.type === 'note.created')
  await sync.next((m) => m.type === 'note.created')
  t.ok(agent.of('dns.zone.created').length === 1, 'the agent key sees its user’s DNS change')
  t.same(sync.of('dns.zone.created'), [], 'the sync key does not: sync keys reach records only')
  t.same(
    sync.messages.map((m) => m.type).filter((type) => !['ready', 'note.created'].includes(type)),
    [],
    'nothing but record events',
  )
  sync.close()
  agent.close()
})

t.test('a demoted admin stops receiving system-wide events at once; a revoked key is disconnected', async (t) => {
  const { app, url } = await listening(t, { env })
  const o = await owner(app)
  const admin = await addUser(app, o.token, { role: 'admin' })
  const client = await TestClient.open(url, auth(admin.token))
  app.hearth.events.emit('storage.detected', { userId: null, data: { n: 1 } })
  await client.next((m) => m.type === 'storage.detected')

  const demoted = await app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${admin.userId}`,
    headers: auth(o.token),
    payload: { role: 'user' },
  })
  t.equal(demoted.statusCode, 200)
  await tick()
  app.hearth.events.emit('storage.detected', { userId: null, data: { n: 2 } })
  await tick()
  t.same(
    client.of('storage.detected').map((m) => (m.data as { n: number }).n),
    [1],
    'the second system-wide event is not delivered after the demotion',
  )

  const key = await apiKey(app, o.token, { scope: 'agent' })
  const viaKey = await TestClient.open(url, auth(key))
  const keys = (await app.inject({ method: 'GET', url: '/api/v1/admin/api-keys', headers: auth(o.token) })).json().data
  const closed = viaKey.closed()
  await app.inject({ method: 'DELETE', url: `/api/v1/admin/api-keys/${keys[0].id}`, headers: auth(o.token) })
  t.equal(await closed, 4401, 'revoking the key closes its connection (4401)')
  client.close()
})

t.test('no subscribe filter shows a user another user’s events', async (t) => {
  const { app, url } = await listening(t, { env })
  const o = await owner(app)
  const other = await addUser(app, o.token)
  const watchers = await Promise.all([TestClient.open(url, auth(other.token)), TestClient.open(url, auth(other.token))])
  await watchers[1].subscribe(['dns.*', 'note.*', 'contact.*', 'event.*'])
  const mine = await TestClient.open(url, auth(o.token))
  const h = auth(o.token)
  await app.inject({ method: 'POST', url: '/api/v1/notes', headers: h, payload: { content: 'private' } })
  await app.inject({ method: 'POST', url: '/api/v1/contacts', headers: h, payload: { display_name: 'Ada' } })
  await app.inject({ method: 'POST', url: '/api/v1/events', headers: h, payload: { title: 'Dentist', start_at: '2026-12-01T09:00:00Z' } })
  const zone = await app.inject({
    method: 'POST',
    url: '/api/v1/dns/zones',
    headers: h,
    payload: { zone: 'mine.test', mode: 'authoritative' },
  })
  await app.inject({
    method: 'POST',
    url: `/api/v1/dns/zones/${zone.json().data.id}/records`,
    headers: h,
    payload: { type: 'A', name: 'www', content: '192.0.2.1' },
  })
  await mine.next((m) => m.type === 'dns.record.created')
  await tick()
  for (const w of watchers) {
    t.same(
      w.messages.filter((m) => !['ready', 'subscribed'].includes(m.type)),
      [],
      'the other user received none of them',
    )
    w.close()
  }
  mine.close()
})
