import t from 'tap'
import { addUser, apiKey, auth, build, owner, turnOnTwoFactor } from '../helper.js'
import { SoftAuthenticator, type Tamper } from '../webauthn-authenticator.js'

/**
 * Passkeys through the HTTP API, with a software authenticator that builds a browser's and a platform
 * authenticator's bytes from the specification (test/webauthn-authenticator.ts): registering, signing in
 * (no second-factor step after it), and every way an answer can be wrong.
 */

const HOST = 'hearth.test'
const ORIGIN = `https://${HOST}`

async function bench(t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const clock = { now: Date.now() }
  const app = await build(t, { env: { HEARTH_PUBLIC_HOSTNAME: HOST, ...env }, now: () => clock.now })
  const o = await owner(app)
  const post = (url: string, payload?: unknown, token?: string, remoteAddress = '127.0.0.1') =>
    app.inject({
      method: 'POST',
      url: `/api/v1/auth/webauthn${url}`,
      remoteAddress,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: token ? auth(token) : {},
    })
  /** Registers a new software passkey for the holder of `token`. */
  const enrol = async (token: string, name = 'Laptop', origin = ORIGIN) => {
    const key = new SoftAuthenticator()
    const options = (await post('/register/options', undefined, token)).json().data
    const res = await post('/register', { response: key.create(options, origin), name }, token)
    return { key, res }
  }
  /** One sign-in: fresh options (for `email`, if given), the authenticator's answer, possibly tampered with. */
  const signIn = async (key: SoftAuthenticator, tamper: Tamper = {}, email?: string) => {
    const options = (await post('/login/options', email ? { email } : {})).json().data
    return post('/login', { response: key.get(options, ORIGIN, tamper) })
  }
  return { app, clock, o, post, enrol, signIn }
}

t.test('without HEARTH_PUBLIC_HOSTNAME passkeys are off with a clear 422; the list still answers', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  for (const [url, payload] of [
    ['/register/options', undefined],
    ['/login/options', {}],
    ['/login', { response: new SoftAuthenticator().get({ challenge: 'AAAA' }, ORIGIN) }],
  ] as const) {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/auth/webauthn${url}`,
      ...(payload ? { payload } : {}),
      headers: auth(o.token),
    })
    t.equal(res.statusCode, 422, url)
    t.match(
      res.json().error,
      { code: 'UNPROCESSABLE', message: /HEARTH_PUBLIC_HOSTNAME/, details: { setting: 'HEARTH_PUBLIC_HOSTNAME' } },
      url,
    )
  }
  const list = await app.inject({ method: 'GET', url: '/api/v1/auth/webauthn/credentials', headers: auth(o.token) })
  t.same(list.json().data, [])
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/auth/status' })).json().data.passkeys, false, 'a sign-in page can tell')
})

t.test('register a passkey, then sign in with it: the tokens at once, even with two-factor sign-in on', async (t) => {
  const b = await bench(t)
  const optionsRes = await b.post('/register/options', undefined, b.o.token)
  t.equal(optionsRes.statusCode, 200, optionsRes.body)
  t.equal((await b.app.inject({ method: 'GET', url: '/api/v1/auth/status' })).json().data.passkeys, true)
  const options = optionsRes.json().data
  t.match(options, {
    rp: { id: HOST, name: 'Hearth' },
    user: { name: b.o.email },
    challenge: /^[A-Za-z0-9_-]{43}$/,
    attestation: 'none',
    authenticatorSelection: { userVerification: 'required' },
    excludeCredentials: [],
  })
  t.same(
    options.pubKeyCredParams.map((p: { alg: number }) => p.alg),
    [-7, -8, -257],
  )
  t.equal(Buffer.from(options.user.id, 'base64url').toString('hex'), b.o.userId.replace(/-/g, ''), 'the user handle is the account id')

  const key = new SoftAuthenticator()
  const created = await b.post('/register', { response: key.create(options, ORIGIN), name: 'Laptop' }, b.o.token)
  t.equal(created.statusCode, 201, created.body)
  t.match(created.json().data, { name: 'Laptop', last_used_at: null, backed_up: false })
  const again = await b.post('/register', { response: key.create(options, ORIGIN), name: 'Laptop' }, b.o.token)
  t.equal(again.statusCode, 400, 'a registration challenge is answered once')
  t.match(again.json().error, { code: 'VALIDATION_ERROR', details: { field: 'response' } })
  const next = (await b.post('/register/options', undefined, b.o.token)).json().data
  t.same(
    next.excludeCredentials,
    [{ id: key.id, type: 'public-key', transports: ['internal'] }],
    'the browser is told what it holds already',
  )

  // Two-factor sign-in on: the password asks a code; the passkey does not.
  await turnOnTwoFactor(b.app, b.o)
  const password = await b.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: b.o.email, password: b.o.password } })
  t.equal(password.json().data.mfa_required, true, 'two-factor sign-in is on')

  const withEmail = (await b.post('/login/options', { email: b.o.email })).json().data
  t.match(withEmail, { rpId: HOST, userVerification: 'required', allowCredentials: [{ id: key.id, type: 'public-key' }] })
  const login = await b.post('/login', { response: key.get(withEmail, ORIGIN) })
  t.equal(login.statusCode, 200, login.body)
  t.equal(login.headers['cache-control'], 'no-store')
  const session = login.json().data
  t.ok(session.accessToken && session.refreshToken, 'the tokens, no second step')
  t.equal(session.user.id, b.o.userId)
  const list = await b.app.inject({ method: 'GET', url: '/api/v1/auth/webauthn/credentials', headers: auth(session.accessToken) })
  t.equal(list.statusCode, 200, 'the passkey session is a session')
  t.match(list.json().data, [{ name: 'Laptop', last_used_at: /^\d{4}-/ }])

  // A discoverable sign-in: no email, the browser picks the passkey; an empty body is the same.
  const anyone = await b.app.inject({ method: 'POST', url: '/api/v1/auth/webauthn/login/options' })
  t.equal(anyone.statusCode, 200, anyone.body)
  t.same(anyone.json().data.allowCredentials, [])
  t.equal((await b.post('/login', { response: key.get(anyone.json().data, ORIGIN) })).statusCode, 200)
  const unknown = (await b.post('/login/options', { email: 'nobody@example.test' })).json().data
  t.same(unknown.allowCredentials, [], 'an unknown email answers like one without passkeys')
})

t.test('tampered answers are 401 with the envelope, each one step of the sign-in throttle', async (t) => {
  const b = await bench(t, { HEARTH_LOGIN_FAIL_LIMIT: '4' })
  const { key } = await b.enrol(b.o.token)
  const tampers: Array<[string, Tamper]> = [
    ['signature', { signature: true }],
    ['challenge never issued', { challenge: Buffer.alloc(32, 7).toString('base64url') }],
    ['origin of a phishing site', { origin: 'https://hearth.test.evil.example' }],
    ['RP ID hash of another site', { rpId: 'evil.example' }],
  ]
  for (const [what, tamper] of tampers) {
    const res = await b.signIn(key, tamper)
    t.equal(res.statusCode, 401, what)
    t.same(
      res.json(),
      { error: { code: 'UNAUTHORIZED', message: 'The passkey could not be verified' } },
      `${what}: the envelope, no detail`,
    )
  }
  const blocked = await b.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: b.o.email, password: b.o.password } })
  t.equal(blocked.statusCode, 429, 'four failures spent the budget passwords share: the right password waits too')
  t.ok(Number(blocked.headers['retry-after']) > 0)
  t.equal((await b.signIn(key)).statusCode, 429, 'and so does the right passkey')
})

t.test('more wrong answers: plain HTTP, another port, no user verification, a replay, a cloned counter', async (t) => {
  const b = await bench(t)
  const { key } = await b.enrol(b.o.token)
  const refused: Array<[string, Tamper]> = [
    ['plain HTTP', { origin: `http://${HOST}` }],
    ['another port', { origin: `${ORIGIN}:8443` }],
    ['a loopback origin when the name is not localhost', { origin: 'http://localhost:7200' }],
    ['a registration answer type', { type: 'webauthn.create' }],
    ['no user verification', { userVerified: false }],
  ]
  for (const [what, tamper] of refused) t.equal((await b.signIn(key, tamper)).statusCode, 401, what)

  const options = (await b.post('/login/options', {})).json().data
  const answer = key.get(options, ORIGIN)
  t.equal((await b.post('/login', { response: answer })).statusCode, 200)
  t.equal((await b.post('/login', { response: answer })).statusCode, 401, 'the same answer again: its challenge is spent')
  t.equal((await b.signIn(key, { counter: key.counter })).statusCode, 401, 'a counter that did not move on (a cloned authenticator)')
  t.equal((await b.signIn(key)).statusCode, 200, 'the authenticator itself goes on')

  const other = await addUser(b.app, b.o.token)
  const theirs = await b.enrol(other.token, 'Phone')
  t.equal((await b.signIn(theirs.key, {}, b.o.email)).statusCode, 401, "options asked for one account do not sign in another's passkey")
  t.equal((await b.signIn(theirs.key)).statusCode, 200)
})

t.test('deleting a passkey stops it; another member’s cannot be deleted or seen', async (t) => {
  const b = await bench(t)
  const mine = await b.enrol(b.o.token, 'Laptop')
  const other = await addUser(b.app, b.o.token)
  const theirs = await b.enrol(other.token, 'Phone')
  const theirId = theirs.res.json().data.id
  const list = (token: string) => b.app.inject({ method: 'GET', url: '/api/v1/auth/webauthn/credentials', headers: auth(token) })
  t.same(
    (await list(b.o.token)).json().data.map((p: { name: string }) => p.name),
    ['Laptop'],
  )
  const del = (id: string, token: string) =>
    b.app.inject({ method: 'DELETE', url: `/api/v1/auth/webauthn/credentials/${id}`, headers: auth(token) })
  const notMine = await del(theirId, b.o.token)
  t.equal(notMine.statusCode, 404, "the owner cannot delete a member's passkey by its id")
  t.equal(notMine.json().error.code, 'NOT_FOUND')
  t.equal((await b.signIn(theirs.key)).statusCode, 200, 'it still works')

  const gone = await del(mine.res.json().data.id, b.o.token)
  t.equal(gone.statusCode, 200)
  t.equal(gone.json().data.name, 'Laptop')
  t.equal((await b.signIn(mine.key)).statusCode, 401, 'a deleted passkey signs in no more')
  t.equal((await del(mine.res.json().data.id, b.o.token)).statusCode, 404)
  t.same((await list(b.o.token)).json().data, [])

  const disable = await b.app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${other.userId}`,
    payload: { disabled: true },
    headers: auth(b.o.token),
  })
  t.equal(disable.statusCode, 200, disable.body)
  t.equal((await b.signIn(theirs.key)).statusCode, 401, 'a disabled account signs in with no passkey')
})

t.test('only the member’s signed-in session adds a passkey; bad bodies are 400', async (t) => {
  const b = await bench(t)
  const system = await apiKey(b.app, b.o.token, { scope: 'system' })
  for (const token of [system, b.app.systemToken]) {
    const res = await b.post('/register/options', undefined, token)
    t.equal(res.statusCode, 403)
    t.equal(res.json().error.code, 'FORBIDDEN')
  }
  const key = new SoftAuthenticator()
  const options = (await b.post('/register/options', undefined, b.o.token)).json().data
  const response = key.create(options, ORIGIN)
  for (const [what, body] of [
    ['no name', { response }],
    ['an empty name', { response, name: '' }],
    [
      'a response that is not base64url',
      { response: { ...response, response: { ...response.response, clientDataJSON: '{"x":1}' } }, name: 'x' },
    ],
    ['an unknown field', { response, name: 'x', admin: true }],
  ] as const) {
    const res = await b.post('/register', body, b.o.token)
    t.equal(res.statusCode, 400, what)
    t.equal(res.json().error.code, 'VALIDATION_ERROR', what)
  }
  const wrongOrigin = await b.post('/register', { response: key.create(options, 'https://evil.example'), name: 'x' }, b.o.token)
  t.equal(wrongOrigin.statusCode, 400, 'a registration made on another site')
  t.match(wrongOrigin.json().error, { details: { field: 'response', constraint: 'webauthn' } })
})

t.test('a passkey is added within 15 minutes of signing in; refreshing the session does not renew that', async (t) => {
  const b = await bench(t)
  t.equal((await b.post('/register/options', undefined, b.o.token)).statusCode, 200, 'just signed in')
  // The member signed in 16 minutes ago: the session's first refresh token is that old.
  b.app.hearth.db.prepare('UPDATE refresh_tokens SET created_at = created_at - 960 WHERE user_id = ?').run(b.o.userId)
  const stale = await b.post('/register/options', undefined, b.o.token)
  t.equal(stale.statusCode, 403)
  t.match(stale.json().error, { code: 'FORBIDDEN', message: /Sign in again/, details: { reason: 'recent_sign_in' } })
  const refreshed = await b.app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: b.o.refreshToken } })
  t.equal(refreshed.statusCode, 200, refreshed.body)
  t.equal(
    (await b.post('/register/options', undefined, refreshed.json().data.accessToken)).statusCode,
    403,
    'a refreshed session is the same old sign-in',
  )
  const again = await b.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: b.o.email, password: b.o.password } })
  const fresh = await b.post('/register/options', undefined, again.json().data.accessToken)
  t.equal(fresh.statusCode, 200, 'signed in again: the passkey can be added')
})

t.test('on localhost, the daemon’s own http://localhost:<port> is an origin; another port is not', async (t) => {
  const app = await build(t, { env: { HEARTH_PUBLIC_HOSTNAME: 'localhost' } })
  const o = await owner(app)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const port = Number(new URL(base).port)
  const post = async (url: string, body: unknown, token?: string) => {
    const res = await fetch(`${base}/api/v1/auth/webauthn${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? auth(token) : {}) },
      body: JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as { data: never } }
  }
  const key = new SoftAuthenticator()
  const options = (await post('/register/options', {}, o.token)).body.data
  const created = await post('/register', { response: key.create(options, `http://localhost:${port}`), name: 'Chromium' }, o.token)
  t.equal(created.status, 201, JSON.stringify(created.body))
  const login = async (origin: string) => post('/login', { response: key.get((await post('/login/options', {})).body.data, origin) })
  t.equal((await login(`http://localhost:${port}`)).status, 200, 'the page this daemon serves')
  t.equal((await login(`http://localhost:${port + 1}`)).status, 401, 'another program on this machine')
  t.equal((await login(`http://127.0.0.1:${port}`)).status, 401, 'an address is no RP ID')
  t.equal((await login('https://localhost')).status, 200, 'HTTPS on the name itself')
})

t.test('a challenge lives five minutes, serves its own ceremony, and a flood of options evicts only the flooder’s', async (t) => {
  const b = await bench(t)
  const { key } = await b.enrol(b.o.token)
  const late = (await b.post('/login/options', {})).json().data
  b.clock.now += 5 * 60_000 + 1
  t.equal((await b.post('/login', { response: key.get(late, ORIGIN) })).statusCode, 401, 'expired after five minutes')

  const forRegistration = (await b.post('/register/options', undefined, b.o.token)).json().data
  t.equal(
    (await b.post('/login', { response: key.get({ challenge: forRegistration.challenge }, ORIGIN) })).statusCode,
    401,
    'a registration challenge signs nobody in',
  )

  const noUv = new SoftAuthenticator()
  const options = (await b.post('/register/options', undefined, b.o.token)).json().data
  const refused = await b.post('/register', { response: noUv.create(options, ORIGIN, { userVerified: false }), name: 'x' }, b.o.token)
  t.equal(refused.statusCode, 400, 'an authenticator that did not verify the member registers nothing')

  const member = (await b.post('/login/options', {}, undefined, '127.0.0.2')).json().data
  const flooderFirst = (await b.post('/login/options', {}, undefined, '127.0.0.3')).json().data
  for (let i = 0; i < 40; i++) await b.post('/login/options', {}, undefined, '127.0.0.3')
  t.equal(
    (await b.post('/login', { response: key.get(flooderFirst, ORIGIN) }, undefined, '127.0.0.3')).statusCode,
    401,
    'the flooder’s own oldest challenge went',
  )
  t.equal(
    (await b.post('/login', { response: key.get(member, ORIGIN) }, undefined, '127.0.0.2')).statusCode,
    200,
    'another client’s challenge is kept',
  )
})
