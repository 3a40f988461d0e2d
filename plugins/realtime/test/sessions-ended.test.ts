import t from 'tap'
import { auth, changePassword, owner, type TestApp } from '../../../test/helper.js'
import { listening, TestClient } from './ws-client.js'

/**
 * A session signed out closes its live WebSocket at once, not at the socket's next re-check (a ping
 * away: 30 s by default, a minute here). Before, only an admin's change of the user and a revoked key
 * did; a session ended by its member, a logout, a password change or a refresh token played twice left
 * the thief's stream open until the ping.
 */

const PING = { HEARTH_WS_PING_INTERVAL_MS: '60000' }

/** The close code within `ms`, or 'open'. */
const closedWithin = (client: TestClient, ms = 5000) =>
  Promise.race([client.closed(), new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), ms).unref())])

async function signIn(app: TestApp, email: string, password: string) {
  const res = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email, password } })
  return res.json().data as { accessToken: string; refreshToken: string }
}

t.test('a member signs a session out: its socket closes with 4401 at once, their own stays', async (t) => {
  const { app, url } = await listening(t, { env: PING })
  const o = await owner(app)
  const stolen = await signIn(app, o.email, o.password)
  const thief = await TestClient.open(url, auth(stolen.accessToken))
  const mine = await TestClient.open(url, auth(o.token))
  const sessions = (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(o.token) })).json().data
  const other = sessions.find((s: { current: boolean }) => !s.current)
  const closing = closedWithin(thief)
  const res = await app.inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${other.id}`, headers: auth(o.token) })
  t.equal(res.statusCode, 200)
  t.equal(await closing, 4401)
  t.equal(mine.ws.readyState, mine.ws.OPEN, "the member's own socket stays")
  mine.close()
})

t.test('a logout closes the socket of that session', async (t) => {
  const { app, url } = await listening(t, { env: PING })
  const o = await owner(app)
  const session = await signIn(app, o.email, o.password)
  const client = await TestClient.open(`${url}?token=${session.accessToken}`)
  const closing = closedWithin(client)
  await app.inject({ method: 'POST', url: '/api/v1/auth/logout', payload: { refresh_token: session.refreshToken } })
  t.equal(await closing, 4401)
})

t.test("a password change closes every other session's socket", async (t) => {
  const { app, url } = await listening(t, { env: PING })
  const o = await owner(app)
  const laptop = await signIn(app, o.email, o.password)
  const client = await TestClient.open(url, auth(laptop.accessToken))
  const closing = closedWithin(client)
  const res = await changePassword(app, o.token, o.password, 'a new and better password')
  t.equal(res.statusCode, 200)
  t.equal(await closing, 4401)
})

t.test('a refresh token played twice ends its session and closes its socket', async (t) => {
  const { app, url } = await listening(t, { env: PING })
  const o = await owner(app)
  const session = await signIn(app, o.email, o.password)
  const refresh = () => app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: session.refreshToken } })
  const next = (await refresh()).json().data
  const client = await TestClient.open(url, auth(next.accessToken))
  const closing = closedWithin(client)
  t.equal((await refresh()).statusCode, 401, 'the old refresh token again: reuse')
  t.equal(await closing, 4401)
})
