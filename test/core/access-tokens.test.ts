import { SignJWT } from 'jose'
import t from 'tap'
import { auth, build, changePassword, owner } from '../helper.js'

/**
 * An access token's signature is checked once and remembered: what it says of the token must stay true on
 * every later use. A token that expires is refused from then on, a token changed by one character is
 * refused although the true one was accepted, and a password change or a signed-out session still ends it.
 */
const SECRET = 'a test secret that is long enough for HS256, 48 chars'
const status = (app: Awaited<ReturnType<typeof build>>, token: string) =>
  app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(token) }).then((r) => r.statusCode)

t.test('a remembered token is refused once it expires', async (t) => {
  const app = await build(t, { env: { HEARTH_JWT_SECRET: SECRET } })
  const o = await owner(app)
  const now = Date.now() / 1000
  const short = await new SignJWT({ email: o.email, role: 'owner', iat: now })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(o.userId)
    .setExpirationTime(Math.ceil(now) + 1)
    .sign(new TextEncoder().encode(SECRET))
  t.equal(await status(app, short), 200, 'accepted while valid')
  t.equal(await status(app, short), 200, 'and again, remembered')
  await new Promise((r) => setTimeout(r, (Math.ceil(now) + 1 - Date.now() / 1000) * 1000 + 50))
  t.equal(await status(app, short), 401, 'refused once its exp has passed')
})

t.test('a token changed by one character is refused after the true one was accepted', async (t) => {
  const app = await build(t, { env: { HEARTH_JWT_SECRET: SECRET } })
  const o = await owner(app)
  t.equal(await status(app, o.token), 200)
  const last = o.token.at(-2) === 'A' ? 'B' : 'A'
  const forged = `${o.token.slice(0, -2)}${last}${o.token.at(-1)}`
  t.equal(await status(app, forged), 401)
  const otherKey = await new SignJWT({ email: 'x@example.test', role: 'owner', iat: Date.now() / 1000 })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('someone')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode('another secret, also long enough for HS256 tokens'))
  t.equal(await status(app, otherKey), 401, 'signed with another key')
  t.equal(await status(app, o.token), 200, 'the true token still works')
})

t.test('a remembered token still ends with a password change', async (t) => {
  const app = await build(t, { env: { HEARTH_JWT_SECRET: SECRET } })
  const o = await owner(app)
  t.equal(await status(app, o.token), 200)
  const changed = await changePassword(app, o.token, o.password, 'another long password')
  t.equal(changed.statusCode, 200, changed.body)
  t.equal(await status(app, o.token), 401)
  t.equal(await status(app, changed.json().data.accessToken), 200, "the change's own new token works")
})
