import t from 'tap'
import dav from '../../plugins/dav/index.js'
import records from '../../plugins/records/index.js'
import { addUser, auth, build, owner, turnOnTwoFactor } from '../helper.js'

/** App passwords: a device's DAV credential, made and revoked by its user, through the HTTP API and a real DAV request. */

const basic = (email: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` })
const PROPFIND = '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>'

async function bench(t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const clock = { now: Date.UTC(2026, 10, 27, 12) }
  const app = await build(t, { plugins: [records as never, dav as never], now: () => clock.now, env })
  const o = await owner(app)
  const propfind = (email: string, password: string, remoteAddress = '127.0.0.1') =>
    app.inject({
      method: 'PROPFIND' as 'GET',
      url: '/dav/',
      payload: PROPFIND,
      headers: { ...basic(email, password), depth: '0', 'content-type': 'application/xml' },
      remoteAddress,
    })
  return { app, o, clock, propfind }
}

t.test('create (shown once), sign in to /dav/ with it, listed with its last use, revoked', async (t) => {
  const { app, o, propfind } = await bench(t)
  const made = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/app-passwords',
    headers: auth(o.token),
    payload: { name: 'Ann’s iPhone' },
  })
  t.equal(made.statusCode, 201, made.body)
  const { id, name, password, created_at } = made.json().data
  t.equal(name, 'Ann’s iPhone')
  t.ok(password && created_at)

  const before = (await app.inject({ method: 'GET', url: '/api/v1/auth/app-passwords', headers: auth(o.token) })).json().data
  t.same(before, [{ id, name, created_at, last_used_at: null }], 'listed without the password')

  const synced = await propfind(o.email, password)
  t.equal(synced.statusCode, 207, 'a real DAV request signs in with it')
  const after = (await app.inject({ method: 'GET', url: '/api/v1/auth/app-passwords', headers: auth(o.token) })).json().data
  t.ok(after[0].last_used_at, 'last use recorded')

  for (const url of ['/api/v1/notes', '/api/v1/auth/app-passwords', '/api/v1/auth/sessions']) {
    const res = await app.inject({ method: 'GET', url, headers: auth(password) })
    t.equal(res.statusCode, 403, `${url}: an app password is not an API credential`)
    t.equal(res.json().error.code, 'INSUFFICIENT_SCOPE')
  }
  t.equal((await propfind('someone@else.test', password)).statusCode, 401, "another user's email with it: refused")

  const gone = await app.inject({ method: 'DELETE', url: `/api/v1/auth/app-passwords/${id}`, headers: auth(o.token) })
  t.equal(gone.statusCode, 200)
  t.equal((await propfind(o.email, password)).statusCode, 401, 'revoked: the device is signed out')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/auth/app-passwords/${id}`, headers: auth(o.token) })).statusCode, 404)
  t.same((await app.inject({ method: 'GET', url: '/api/v1/auth/app-passwords', headers: auth(o.token) })).json().data, [])
})

t.test("a member cannot see or revoke another member's app passwords", async (t) => {
  const { app, o } = await bench(t)
  const kid = await addUser(app, o.token, { email: 'kid@home.test' })
  const mine = (
    await app.inject({ method: 'POST', url: '/api/v1/auth/app-passwords', headers: auth(o.token), payload: { name: 'Mac' } })
  ).json().data
  t.same((await app.inject({ method: 'GET', url: '/api/v1/auth/app-passwords', headers: auth(kid.token) })).json().data, [])
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/auth/app-passwords/${mine.id}`, headers: auth(kid.token) })).statusCode, 404)
  t.equal(
    (await app.inject({ method: 'POST', url: '/api/v1/auth/app-passwords', headers: auth(o.token), payload: { name: '' } })).statusCode,
    400,
  )
})

t.test("someone failing to sign in as the user does not lock the user's devices out; no second factor is asked", async (t) => {
  const { app, o, propfind, clock } = await bench(t, { HEARTH_LOGIN_FAIL_LIMIT: '3' })
  const { password } = (
    await app.inject({ method: 'POST', url: '/api/v1/auth/app-passwords', headers: auth(o.token), payload: { name: 'Phone' } })
  ).json().data

  // Two-factor sign-in on: the device is not asked for a code.
  t.equal((await turnOnTwoFactor(app, o, clock.now)).status, 200)

  const attacker = '198.51.100.9'
  const tries: number[] = []
  for (let i = 0; i < 6; i++) tries.push((await propfind(o.email, `clk_${'0'.repeat(32)}`, attacker)).statusCode)
  for (let i = 0; i < 6; i++)
    tries.push(
      (
        await app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          payload: { email: o.email, password: 'guess' },
          remoteAddress: attacker,
        })
      ).statusCode,
    )
  t.ok(tries.includes(429), `the guessing client is throttled (${tries.join(' ')})`)
  t.equal((await propfind(o.email, password, attacker)).statusCode, 429, 'the guessing client is refused even with the right password')
  t.equal((await propfind(o.email, password, '203.0.113.20')).statusCode, 207, 'the phone elsewhere keeps syncing')
  t.equal((await propfind(o.email, password)).statusCode, 207, 'and at home')
})
