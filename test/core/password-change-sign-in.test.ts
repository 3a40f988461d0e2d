import t from 'tap'
import { auth, build, owner, turnOnTwoFactor } from '../helper.js'
import { SoftAuthenticator } from '../webauthn-authenticator.js'

/**
 * A password change is not a sign-in. Its answer used to open a new session, which counted as signed
 * in that moment: a stolen session whose thief knew the password (but not the member's authenticator
 * app) changed it and, with the fresh session, added a passkey of its own, a way in that skips the
 * second factor and outlives every later password change. The answer now goes on with the caller's
 * session, whose sign-in stays as old as it was.
 */

const HOST = 'hearth.test'

t.test('a stolen session changing the password gets no fresh sign-in to add a passkey with', async (t) => {
  const clock = { now: Date.now() }
  const app = await build(t, { env: { HEARTH_PUBLIC_HOSTNAME: HOST }, now: () => clock.now })
  const o = await owner(app)
  const post = (url: string, token: string, payload?: object) =>
    app.inject({ method: 'POST', url: `/api/v1${url}`, headers: auth(token), ...(payload ? { payload } : {}) })

  t.equal((await turnOnTwoFactor(app, o, clock.now)).status, 200)
  // The session was signed in 16 minutes ago: too long ago to add a passkey.
  app.hearth.db.prepare('UPDATE refresh_tokens SET created_at = created_at - 960 WHERE user_id = ?').run(o.userId)
  t.equal((await post('/auth/webauthn/register/options', o.token)).statusCode, 403, 'the stolen session alone may not')

  const changed = await post('/auth/password', o.token, { current_password: o.password, new_password: 'the thief’s password' })
  t.equal(changed.statusCode, 200)
  const after = changed.json().data.accessToken as string
  const options = await post('/auth/webauthn/register/options', after)
  t.equal(options.statusCode, 403, 'the tokens a password change answers are no fresh sign-in')
  t.match(options.json().error, { details: { reason: 'recent_sign_in' } })
  if (options.statusCode === 200) {
    const key = new SoftAuthenticator()
    const made = await post('/auth/webauthn/register', after, {
      response: key.create(options.json().data, `https://${HOST}`),
      name: 'Thief',
    })
    t.equal(made.statusCode, 201, 'before: the thief held a passkey')
  }

  const sessions = (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(after) })).json().data
  t.equal(sessions.length, 1, 'one session: the caller’s, going on')
  t.equal(sessions[0].current, true)
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(o.token) })).statusCode,
    401,
    'its old token ended',
  )
  const refreshed = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/refresh',
    payload: { refresh_token: changed.json().data.refreshToken },
  })
  t.equal(refreshed.statusCode, 200, 'the new refresh token works')
  const outWithOld = await app.inject({ method: 'POST', url: '/api/v1/auth/logout', payload: { refresh_token: o.refreshToken } })
  t.equal(outWithOld.statusCode, 200)
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(refreshed.json().data.accessToken) })).statusCode,
    200,
    'a refresh token ended by the change signs the session out no more',
  )

  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: o.email, password: 'the thief’s password' },
  })
  t.match(login.json().data, { mfa_required: true }, 'a real sign-in still asks for the code')
})
