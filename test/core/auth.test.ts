import t from 'tap'
import { addUser, apiKey, auth, build, owner } from '../helper.js'

const status = async (app: Awaited<ReturnType<typeof build>>) =>
  (await app.inject({ method: 'GET', url: '/api/v1/auth/status' })).json().data.mode

t.test('modes move from setup to single_user to multi_user; setup works once', async (t) => {
  const app = await build(t)
  t.equal(await status(app), 'setup')
  const bad = await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: { email: 'a@b.test', password: 'short' } })
  t.equal(bad.statusCode, 400)
  t.same(bad.json().error.details, { field: 'password', constraint: 'minLength' })

  const o = await owner(app)
  t.equal(await status(app), 'single_user')
  const me = await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: auth(o.token) })
  t.equal(me.json().data[0].role, 'owner')
  t.notOk('password_hash' in me.json().data[0], 'no password hash in responses')

  const again = await app.inject({ method: 'POST', url: '/api/v1/auth/setup', payload: { email: 'x@y.test', password: 'long enough pw' } })
  t.equal(again.statusCode, 409)
  t.equal(again.json().error.code, 'CONFLICT')

  await addUser(app, o.token)
  t.equal(await status(app), 'multi_user')
})

t.test('login, garbage tokens and the exact 401 envelope', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const ok = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password: o.password } })
  t.equal(ok.statusCode, 200)
  const session = ok.json().data
  t.match(session, { accessToken: String, refreshToken: String, user: { email: o.email, role: 'owner' } })
  const [, payload] = session.accessToken.split('.')
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString())
  t.same(Object.keys(claims).sort(), ['email', 'exp', 'iat', 'role', 'sub'])
  t.equal(claims.exp - claims.iat, 24 * 3600, 'access token lives 24 hours')

  const wrong = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password: 'not the password' } })
  t.equal(wrong.statusCode, 401)
  const unknown = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: 'nobody@x.test', password: 'whatever123' },
  })
  t.equal(unknown.statusCode, 401)
  t.equal(unknown.json().error.message, wrong.json().error.message, 'unknown account and wrong password look alike')

  for (const header of [
    undefined,
    'Bearer garbage',
    'Bearer clk_00000000000000000000000000000000',
    'Basic abc',
    `Bearer ${session.accessToken}x`,
  ]) {
    const res = await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: header ? { authorization: header } : {} })
    t.equal(res.statusCode, 401, `401 for ${header}`)
    t.same(res.json(), { error: { code: 'UNAUTHORIZED', message: 'Invalid or missing authentication token' } })
  }
})

t.test('refresh rotates tokens; reusing a rotated token revokes the family; logout revokes', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const refresh = (token: string) => app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: token } })

  const first = await refresh(o.refreshToken)
  t.equal(first.statusCode, 200)
  const rotated = first.json().data.refreshToken
  t.not(rotated, o.refreshToken, 'refresh token rotated')

  const reuse = await refresh(o.refreshToken)
  t.equal(reuse.statusCode, 401, 'old refresh token refused')
  const afterReuse = await refresh(rotated)
  t.equal(afterReuse.statusCode, 401, 'reuse detection revoked the newer token of the family too')

  const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password: o.password } })
  const fresh = login.json().data.refreshToken
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/auth/logout', payload: { refresh_token: fresh } })).statusCode, 200)
  t.equal((await refresh(fresh)).statusCode, 401, 'logged-out refresh token no longer works')
  const missing = await app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: {} })
  t.equal(missing.statusCode, 400)
  t.same(missing.json().error.details, { field: 'refresh_token', constraint: 'required' })
})

t.test('invitations, registration, forgotten and reset passwords', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const invite = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/invitations',
    headers: auth(o.token),
    payload: { email: 'kid@home.test', role: 'user' },
  })
  t.equal(invite.statusCode, 201)
  t.match(invite.json().data, { token: String, expires_at: String })
  const token = invite.json().data.token
  const reg = await app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { token, password: 'kids password' } })
  t.equal(reg.statusCode, 201)
  t.equal(reg.json().data.user.role, 'user')
  const twice = await app.inject({ method: 'POST', url: '/api/v1/auth/register', payload: { token, password: 'kids password' } })
  t.equal(twice.statusCode, 400, 'an invitation works once')

  for (const email of ['kid@home.test', 'nobody@home.test']) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/auth/forgot-password', payload: { email } })
    t.equal(res.statusCode, 200, `forgot-password answers 200 for ${email}`)
  }
  const reset = app.hearth.authService.createResetToken('kid@home.test')
  t.ok(reset)
  const kidSession = reg.json().data
  const done = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/reset-password',
    payload: { token: reset?.token, new_password: 'a brand new one' },
  })
  t.equal(done.statusCode, 200)
  const oldRefresh = await app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: kidSession.refreshToken } })
  t.equal(oldRefresh.statusCode, 401, 'reset revokes refresh tokens')
  const oldAccess = await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: auth(kidSession.accessToken) })
  t.equal(oldAccess.statusCode, 401, 'access tokens issued before the reset stop working')
  const login = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { email: 'kid@home.test', password: 'a brand new one' },
  })
  t.equal(login.statusCode, 200)
  const reused = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/reset-password',
    payload: { token: reset?.token, new_password: 'yet another one' },
  })
  t.equal(reused.statusCode, 400, 'a reset token works once')
})

t.test('changing a password revokes the other sessions', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const wrong = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/change-password',
    headers: auth(o.token),
    payload: { current_password: 'nope nope', new_password: 'new password 1' },
  })
  t.equal(wrong.statusCode, 400)
  const changed = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/change-password',
    headers: auth(o.token),
    payload: { current_password: o.password, new_password: 'new password 1' },
  })
  t.equal(changed.statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: o.refreshToken } })).statusCode, 401)
  const newToken = changed.json().data.accessToken
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: auth(newToken) })).statusCode, 200)
})

t.test('failed logins are throttled per account and client, successful ones are not', async (t) => {
  const app = await build(t, { env: { HEARTH_LOGIN_FAIL_LIMIT: '3' } })
  const o = await owner(app)
  const login = (password: string) => app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password } })
  for (let i = 0; i < 5; i++) t.equal((await login(o.password)).statusCode, 200, 'successful logins are never slowed')
  for (let i = 0; i < 3; i++) t.equal((await login('wrong password')).statusCode, 401)
  const limited = await login(o.password)
  t.equal(limited.statusCode, 429)
  t.equal(limited.json().error.code, 'RATE_LIMITED')
  t.ok(Number(limited.headers['retry-after']) > 0, 'Retry-After is set')
})

t.test('per-token request budget', async (t) => {
  const app = await build(t, { env: { HEARTH_RATE_LIMIT: '5' } })
  const o = await owner(app)
  const codes: number[] = []
  for (let i = 0; i < 7; i++)
    codes.push((await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: auth(o.token) })).statusCode)
  t.same(codes, [200, 200, 200, 200, 200, 429, 429])
})

t.test('api keys: format, hash-only storage, listing, revocation', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const created = await app.inject({ method: 'POST', url: '/api/v1/admin/api-keys', headers: auth(o.token), payload: { label: 'agent' } })
  t.equal(created.statusCode, 201)
  const body = created.json().data
  t.match(body.key, /^clk_[0-9a-f]{32}$/)
  t.equal(body.scope, 'agent', 'default scope is agent')
  t.equal(body.user_id, o.userId, 'default user is the caller')
  t.equal(body.key_prefix, body.key.slice(0, 12))
  const stored = app.hearth.db.prepare('SELECT * FROM api_keys').all() as Array<Record<string, string>>
  t.notOk(JSON.stringify(stored).includes(body.key), 'plaintext key is not stored')

  const mine = await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: auth(o.token) })
  t.equal(mine.statusCode, 200)
  const byAgent = await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: auth(body.key) })
  t.equal(byAgent.json().error?.code, 'INSUFFICIENT_SCOPE', 'an agent key does not list its owner’s keys')
  t.equal(mine.json().data.length, 1)
  t.same(mine.json().meta, { total: 1, limit: 1, offset: 0 }, 'collections use the list envelope')
  t.equal(mine.json().tier, 'free')
  t.notOk('key' in mine.json().data[0], 'listing never shows the key')

  const filtered = await app.inject({
    method: 'GET',
    url: `/api/v1/admin/api-keys?scope=system&user_id=${o.userId}`,
    headers: auth(o.token),
  })
  t.same(filtered.json().data, [])
  const badScope = await app.inject({ method: 'GET', url: '/api/v1/admin/api-keys?scope=root', headers: auth(o.token) })
  t.equal(badScope.json().error.code, 'INVALID_QUERY')

  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/admin/api-keys/${body.id}`, headers: auth(o.token) })).statusCode, 200)
  const revoked = await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: auth(body.key) })
  t.equal(revoked.statusCode, 401, 'revoked key gets 401')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/v1/admin/api-keys/${body.id}`, headers: auth(o.token) })).statusCode, 404)
  const strict = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/api-keys',
    headers: auth(o.token),
    payload: { scope: 'agent', extra: 1 },
  })
  t.same(strict.json().error.details, { field: 'extra', constraint: 'unknown' })
  t.ok(await apiKey(app, o.token, { scope: 'system' }))
})

t.test('admin user management guards the last owner and disables accounts', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const u = await addUser(app, o.token)
  const forbidden = await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: auth(u.token) })
  t.equal(forbidden.statusCode, 403)
  t.equal(forbidden.json().error.code, 'FORBIDDEN')
  const demote = await app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${o.userId}`,
    headers: auth(o.token),
    payload: { role: 'user' },
  })
  t.equal(demote.statusCode, 422, 'the last owner stays an owner')
  const pro = await app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${u.userId}`,
    headers: auth(o.token),
    payload: { tier: 'pro' },
  })
  t.equal(pro.json().data.tier, 'pro')
  const disable = await app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${u.userId}`,
    headers: auth(o.token),
    payload: { disabled: true },
  })
  t.equal(disable.json().data.disabled, true)
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: auth(u.token) })).statusCode,
    401,
    'disabled user is locked out',
  )
  const login = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: u.email, password: u.password } })
  t.equal(login.statusCode, 401)
  const typed = await app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${u.userId}`,
    headers: auth(o.token),
    payload: { disabled: 'false' },
  })
  t.equal(typed.statusCode, 400, 'a boolean sent as a string is refused (no coercion)')
})

t.test('public secret-guessing endpoints are throttled per client', async (t) => {
  const app = await build(t)
  const codes = new Set<number>()
  for (let i = 0; i < 31; i++) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/auth/refresh', payload: { refresh_token: `hrt_guess${i}` } })
    codes.add(res.statusCode)
    if (res.statusCode === 429) {
      t.equal(i, 30, 'the 31st attempt in 15 minutes is refused')
      t.equal(res.json().error.code, 'RATE_LIMITED')
      t.ok(res.headers['retry-after'])
    }
  }
  t.same([...codes].sort(), [401, 429])
  const reset = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/reset-password',
    payload: { token: 'x', new_password: 'whatever long' },
  })
  t.equal(reset.statusCode, 400, 'each endpoint has its own budget')
})
