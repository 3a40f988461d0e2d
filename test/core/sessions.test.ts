import t from 'tap'
import { addUser, auth, build, owner } from '../helper.js'

/** Sessions listed and signed out; a password change ends every other one. */

t.test('one session per sign-in, with its client; signing one out ends its refresh and access tokens', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const login = (agent: string, remoteAddress = '127.0.0.1') =>
    app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: o.email, password: o.password },
      headers: { 'user-agent': agent },
      remoteAddress,
    })
  const phone = (await login('PhoneBrowser/1.0', '192.0.2.44')).json().data
  const laptop = (await login('LaptopBrowser/2.0')).json().data
  const list = async (token: string) =>
    (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(token) })).json().data

  const sessions = await list(laptop.accessToken)
  t.equal(sessions.length, 3, 'setup, the phone and the laptop')
  const mine = sessions.find((s: { current: boolean }) => s.current)
  t.equal(mine.client, 'LaptopBrowser/2.0')
  const phoneSession = sessions.find((s: { client: string }) => s.client === 'PhoneBrowser/1.0')
  t.equal(phoneSession.address, '192.0.2.44')
  t.ok(phoneSession.created_at && phoneSession.last_used_at)
  t.equal(sessions.filter((s: { current: boolean }) => s.current).length, 1)

  // A refresh keeps the session (same family): still three, its client now the refreshing one.
  const refreshed = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/refresh',
    payload: { refresh_token: phone.refreshToken },
    headers: { 'user-agent': 'PhoneBrowser/1.1' },
  })
  t.equal(refreshed.statusCode, 200)
  const again = await list(laptop.accessToken)
  t.equal(again.length, 3)
  t.ok(again.find((s: { id: string; client: string }) => s.id === phoneSession.id && s.client === 'PhoneBrowser/1.1'))

  const out = await app.inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${phoneSession.id}`, headers: auth(laptop.accessToken) })
  t.equal(out.statusCode, 200, out.body)
  const phoneToken = refreshed.json().data
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(phoneToken.accessToken) })).statusCode,
    401,
    "the session's access token stops at once",
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: phoneToken.refreshToken } })).statusCode,
    401,
    'and its refresh token',
  )
  t.equal((await list(laptop.accessToken)).length, 2)
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${phoneSession.id}`, headers: auth(laptop.accessToken) })).statusCode,
    404,
  )

  const logout = await app.inject({ method: 'POST', url: '/api/v1/auth/logout', payload: { refresh_token: o.refreshToken } })
  t.equal(logout.statusCode, 200)
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(o.token) })).statusCode,
    401,
    'logout ends the access token too',
  )
})

t.test("a member cannot sign another member's session out", async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const kid = await addUser(app, o.token, { email: 'kid@home.test' })
  const ownerSession = (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(o.token) })).json().data[0]
  t.equal(
    (await app.inject({ method: 'DELETE', url: `/api/v1/auth/sessions/${ownerSession.id}`, headers: auth(kid.token) })).statusCode,
    404,
  )
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(o.token) })).statusCode, 200)
})

t.test('POST /auth/password: every other session ends; the answer is the new session', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const other = (await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password: o.password } })).json()
    .data
  const wrong = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/password',
    headers: auth(o.token),
    payload: { current_password: 'nope nope', new_password: 'a new password 2' },
  })
  t.equal(wrong.statusCode, 400)
  const changed = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/password',
    headers: auth(o.token),
    payload: { current_password: o.password, new_password: 'a new password 2' },
  })
  t.equal(changed.statusCode, 200, changed.body)
  const next = changed.json().data
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(other.accessToken) })).statusCode,
    401,
    'the other session ended',
  )
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: other.refreshToken } })).statusCode,
    401,
  )
  const left = (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(next.accessToken) })).json().data
  t.equal(left.length, 1)
  t.equal(left[0].current, true)
})

t.test('wrong current passwords are throttled per (user, client) and per user, at both paths', async (t) => {
  const clock = { now: Date.UTC(2026, 10, 27, 12, 0, 0) }
  const app = await build(t, { now: () => clock.now, env: { HEARTH_LOGIN_FAIL_LIMIT: '3' } })
  const o = await owner(app)
  const change = (url: string, current: string, remoteAddress: string) =>
    app.inject({
      method: 'POST',
      url: `/api/v1${url}`,
      headers: auth(o.token),
      payload: { current_password: current, new_password: 'a new password 4' },
      remoteAddress,
    })
  const statuses: number[] = []
  for (const url of ['/auth/password', '/auth/change-password', '/auth/password', '/auth/change-password'])
    statuses.push((await change(url, 'not the password', '198.51.100.1')).statusCode)
  t.same(statuses, [400, 400, 400, 429], 'the fourth wrong one from a client is refused (was 400: no throttle)')
  const right = await change('/auth/password', o.password, '198.51.100.1')
  t.equal(right.statusCode, 429, 'even the right one, from that client')
  t.ok(Number(right.headers['retry-after']) > 0, 'Retry-After is set')
  const elsewhere = await change('/auth/password', o.password, '203.0.113.5')
  t.equal(elsewhere.statusCode, 429, "and from another address: the user's own budget is spent")
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: o.email, password: o.password },
    remoteAddress: '198.51.100.1',
  })
  t.equal(login.statusCode, 429, 'wrong current passwords spend the sign-in budget of that client on that account')
  clock.now += 16 * 60_000
  t.equal((await change('/auth/password', o.password, '203.0.113.5')).statusCode, 200, 'the window passes')
})

t.test('the sessions of a setup and of a registration show their client too', async (t) => {
  const app = await build(t)
  const setup = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/setup',
    payload: { email: 'first@home.test', password: 'the first password' },
    headers: { 'user-agent': 'SetupBrowser/1.0' },
    remoteAddress: '192.0.2.10',
  })
  const token = setup.json().data.accessToken
  const invite = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/invitations',
    headers: auth(token),
    payload: { email: 'kid@home.test' },
  })
  const registered = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/register',
    payload: { token: invite.json().data.token, password: 'the kid password' },
    headers: { 'user-agent': 'KidPhone/2.0' },
    remoteAddress: '192.0.2.11',
  })
  for (const [session, client, address] of [
    [setup, 'SetupBrowser/1.0', '192.0.2.10'],
    [registered, 'KidPhone/2.0', '192.0.2.11'],
  ] as const) {
    const list = await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(session.json().data.accessToken) })
    t.match(list.json().data, [{ client, address, current: true }], `${client}: a member can tell which session is which`)
  }
})
