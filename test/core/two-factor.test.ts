import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { auth, build, owner } from '../helper.js'
import { appCode } from '../totp-reference.js'

/** Two-factor sign-in through the HTTP API, on a clock the test sets (no sleeping). */

const START = Date.UTC(2026, 10, 27, 12, 0, 0)
const STEP = 30_000

async function bench(t: Parameters<typeof build>[0], env: Record<string, string> = {}) {
  const clock = { now: START }
  const app = await build(t, { now: () => clock.now, env })
  const o = await owner(app)
  const post = (url: string, payload: unknown, token?: string, extra: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/api/v1${url}`, payload: payload as object, headers: token ? auth(token, extra) : extra })
  const login = () => post('/auth/login', { email: o.email, password: o.password })
  return { app, clock, o, post, login }
}

/** Sets 2FA up and confirms it at the bench's clock; answers the secret and the recovery codes. */
async function turnOn(b: Awaited<ReturnType<typeof bench>>) {
  const setup = await b.post('/auth/2fa/totp/setup', { password: b.o.password }, b.o.token)
  const { secret } = setup.json().data
  const confirm = await b.post('/auth/2fa/totp/confirm', { password: b.o.password, code: appCode(secret, b.clock.now) }, b.o.token)
  return { secret, codes: confirm.json().data.recovery_codes as string[] }
}

t.test('set-up, confirm, the two-step login; nothing is on before confirm', async (t) => {
  const b = await bench(t)
  const setup = await b.post('/auth/2fa/totp/setup', { password: b.o.password }, b.o.token)
  t.equal(setup.statusCode, 200, setup.body)
  const { secret, otpauth_url } = setup.json().data
  t.match(secret, /^[A-Z2-7]{32}$/, '20 bytes, base32')
  const url = new URL(otpauth_url)
  t.equal(url.searchParams.get('secret'), secret)
  t.equal(decodeURIComponent(url.pathname), `/Hearth:${b.o.email}`)

  const pending = await b.login()
  t.ok(pending.json().data.accessToken, 'pending set-up: login still answers tokens')
  t.equal((await b.app.inject({ method: 'GET', url: '/api/v1/auth/2fa', headers: auth(b.o.token) })).json().data.enabled, false)

  const wrong = await b.post('/auth/2fa/totp/confirm', { password: b.o.password, code: appCode(secret, b.clock.now + 5 * STEP) }, b.o.token)
  t.equal(wrong.statusCode, 400)
  t.match(wrong.json().error, { code: 'VALIDATION_ERROR', details: { field: 'code' } })
  const confirm = await b.post('/auth/2fa/totp/confirm', { password: b.o.password, code: appCode(secret, b.clock.now) }, b.o.token)
  t.equal(confirm.statusCode, 200, confirm.body)
  const codes = confirm.json().data.recovery_codes as string[]
  t.equal(codes.length, 10)
  t.equal(new Set(codes).size, 10)
  t.equal((await b.post('/auth/2fa/totp/setup', { password: b.o.password }, b.o.token)).statusCode, 409, 'already on: no second secret')
  t.equal(
    (await b.post('/auth/refresh', { refresh_token: pending.json().data.refreshToken })).statusCode,
    401,
    'the session made with the password alone ended',
  )
  t.equal(
    (await b.app.inject({ method: 'GET', url: '/api/v1/auth/2fa', headers: auth(b.o.token) })).statusCode,
    200,
    'the confirming session goes on',
  )

  const first = await b.login()
  t.equal(first.statusCode, 200)
  const challenge = first.json().data
  t.same(Object.keys(challenge).sort(), ['methods', 'mfa_required', 'mfa_token'], 'no tokens before the second factor')
  t.equal(challenge.mfa_required, true)
  t.same(challenge.methods, ['totp', 'recovery_code'])

  b.clock.now += STEP
  const code = appCode(secret, b.clock.now)
  const done = await b.post('/auth/login/mfa', { mfa_token: challenge.mfa_token, code })
  t.equal(done.statusCode, 200, done.body)
  t.ok(done.json().data.accessToken)
  t.equal((await b.app.inject({ method: 'GET', url: '/api/v1/auth/2fa', headers: auth(done.json().data.accessToken) })).statusCode, 200)
  t.equal((await b.post('/auth/login/mfa', { mfa_token: challenge.mfa_token, code })).statusCode, 401, 'a challenge is answered once')

  const replay = await b.post('/auth/login/mfa', { mfa_token: (await b.login()).json().data.mfa_token, code })
  t.equal(replay.statusCode, 401, 'the same code again, within its 30 s: refused')
  t.match(replay.json(), { error: { code: 'UNAUTHORIZED' } })
})

t.test('one step of drift, not two; recovery codes work once; an expired challenge is refused', async (t) => {
  const b = await bench(t)
  const { secret, codes } = await turnOn(b)
  const answer = async (code: string) => b.post('/auth/login/mfa', { mfa_token: (await b.login()).json().data.mfa_token, code })

  b.clock.now += 10 * STEP
  t.equal((await answer(appCode(secret, b.clock.now - 2 * STEP))).statusCode, 401, 'two steps late')
  t.equal((await answer(appCode(secret, b.clock.now + 2 * STEP))).statusCode, 401, 'two steps early')
  t.equal((await answer(appCode(secret, b.clock.now - STEP))).statusCode, 200, 'one step late (a slow phone)')
  t.equal((await answer(appCode(secret, b.clock.now - STEP))).statusCode, 401, 'and only once')
  const early = appCode(secret, b.clock.now + STEP)
  t.equal((await answer(`${early.slice(0, 3)} ${early.slice(3)}`)).statusCode, 200, 'one step early, typed as the app shows it')
  t.equal((await answer(appCode(secret, b.clock.now))).statusCode, 401, 'a step before the last accepted one: refused')

  const recovery = codes[3] as string
  t.equal((await answer(recovery.toUpperCase().replace(/-/g, ' '))).statusCode, 200, 'a recovery code, however typed')
  t.equal((await answer(recovery)).statusCode, 401, 'a recovery code works once')
  t.equal((await b.app.inject({ method: 'GET', url: '/api/v1/auth/2fa', headers: auth(b.o.token) })).json().data.recovery_codes_left, 9)

  const stale = (await b.login()).json().data.mfa_token
  b.clock.now += 6 * 60_000
  t.equal(
    (await b.post('/auth/login/mfa', { mfa_token: stale, code: appCode(secret, b.clock.now) })).statusCode,
    401,
    'challenge expired after 5 minutes',
  )
  t.equal((await b.post('/auth/login/mfa', { mfa_token: 'hmf_made-up', code: '123456' })).statusCode, 401)
  const bad = await b.post('/auth/login/mfa', { mfa_token: stale, code: 42 })
  t.equal(bad.statusCode, 400, 'a code of the wrong type: a validation error')
})

t.test('wrong codes: 401 each, then 429 on their own throttle; the password throttle is untouched', async (t) => {
  const b = await bench(t, { HEARTH_LOGIN_FAIL_LIMIT: '3' })
  const { secret } = await turnOn(b)
  const statuses: number[] = []
  for (let i = 0; i < 5; i++) {
    const token = (await b.login()).json().data.mfa_token
    statuses.push((await b.post('/auth/login/mfa', { mfa_token: token, code: '000000' })).statusCode)
  }
  t.same(statuses, [401, 401, 401, 429, 429])
  const token = (await b.login()).json().data.mfa_token
  t.ok(token, 'the password step still answers a challenge')
  const blocked = await b.post('/auth/login/mfa', { mfa_token: token, code: appCode(secret, b.clock.now + STEP) })
  t.equal(blocked.statusCode, 429, 'even a right code, while blocked')
  t.ok(Number(blocked.headers['retry-after']) > 0)

  const elsewhere = await b.app.inject({
    method: 'POST',
    url: '/api/v1/auth/login/mfa',
    payload: { mfa_token: token, code: appCode(secret, b.clock.now + STEP) },
    remoteAddress: '192.0.2.7',
  })
  t.equal(elsewhere.statusCode, 200, "another client's failures do not lock the user out")
  b.clock.now += 16 * 60_000
  const later = (await b.login()).json().data.mfa_token
  t.equal((await b.post('/auth/login/mfa', { mfa_token: later, code: appCode(secret, b.clock.now) })).statusCode, 200, 'the window passes')
})

t.test('wrong codes from many addresses meet a budget of the account itself; a right code from a new one waits too', async (t) => {
  // Limit 2: 2 per (account, client), 10 per client, 10 per account across clients.
  const b = await bench(t, { HEARTH_LOGIN_FAIL_LIMIT: '2' })
  const { secret } = await turnOn(b)
  const fromAddress = (remoteAddress: string, payload: object) =>
    b.app.inject({ method: 'POST', url: '/api/v1/auth/login/mfa', payload, remoteAddress })
  const statuses: number[] = []
  // Eleven addresses, each well inside its own budgets (one wrong code each).
  for (let i = 1; i <= 11; i++) {
    const token = (await b.login()).json().data.mfa_token
    statuses.push((await fromAddress(`198.51.100.${i}`, { mfa_token: token, code: '000000' })).statusCode)
  }
  t.same(statuses, [...Array(10).fill(401), 429], 'the eleventh wrong code, from a fresh address, is refused (was 401)')
  const token = (await b.login()).json().data.mfa_token
  const fresh = await fromAddress('203.0.113.9', { mfa_token: token, code: appCode(secret, b.clock.now + STEP) })
  t.equal(fresh.statusCode, 429, 'a right code from an address never seen is refused while the account is over (was 200)')
  t.ok(Number(fresh.headers['retry-after']) > 0, 'Retry-After is set')
  b.clock.now += 16 * 60_000
  const later = (await b.login()).json().data.mfa_token
  t.equal((await fromAddress('203.0.113.9', { mfa_token: later, code: appCode(secret, b.clock.now) })).statusCode, 200, 'the window passes')
})

t.test('a challenge takes five wrong codes, then the password is needed again', async (t) => {
  const b = await bench(t, { HEARTH_LOGIN_FAIL_LIMIT: '100' })
  const { secret } = await turnOn(b)
  const token = (await b.login()).json().data.mfa_token
  for (let i = 0; i < 5; i++) await b.post('/auth/login/mfa', { mfa_token: token, code: '000000' })
  t.equal((await b.post('/auth/login/mfa', { mfa_token: token, code: appCode(secret, b.clock.now + STEP) })).statusCode, 401)
})

t.test('setting up and confirming need the password: a stolen session alone cannot enrol its own app', async (t) => {
  const b = await bench(t, { HEARTH_LOGIN_FAIL_LIMIT: '3' })
  const setup = (payload: unknown) => b.post('/auth/2fa/totp/setup', payload, b.o.token)
  t.equal((await setup(undefined)).statusCode, 400, 'no password: refused (was 200)')
  const wrongSetup = await setup({ password: 'not the password' })
  t.equal(wrongSetup.statusCode, 400)
  t.match(wrongSetup.json().error, { code: 'VALIDATION_ERROR', details: { field: 'password' } })
  const { secret } = (await setup({ password: b.o.password })).json().data
  const confirm = (password: string | undefined) =>
    b.post('/auth/2fa/totp/confirm', { ...(password === undefined ? {} : { password }), code: appCode(secret, b.clock.now) }, b.o.token)
  t.equal((await confirm(undefined)).statusCode, 400, 'a right code without the password: refused (was 200)')
  const wrongConfirm = await confirm('not the password')
  t.equal(wrongConfirm.statusCode, 400)
  t.match(wrongConfirm.json().error, { code: 'VALIDATION_ERROR', details: { field: 'password' } })
  t.equal((await confirm('still not it')).statusCode, 400, 'the third wrong password (limit 3)')
  const limited = await confirm('nor this')
  t.equal(limited.statusCode, 429, 'wrong passwords count on the second-factor throttle')
  t.ok(Number(limited.headers['retry-after']) > 0)
  t.equal(
    (await b.app.inject({ method: 'GET', url: '/api/v1/auth/2fa', headers: auth(b.o.token) })).json().data.enabled,
    false,
    'still off',
  )
  b.clock.now += 16 * 60_000
  t.equal((await confirm(b.o.password)).statusCode, 200, 'the password and a code turn it on')
})

t.test('turning it off needs the password and a code; then the password alone signs in', async (t) => {
  const b = await bench(t)
  const { secret, codes } = await turnOn(b)
  const off = (payload: unknown) =>
    b.app.inject({ method: 'DELETE', url: '/api/v1/auth/2fa/totp', payload: payload as object, headers: auth(b.o.token) })
  b.clock.now += STEP
  const noPassword = await off({ password: 'not the password', code: appCode(secret, b.clock.now) })
  t.equal(noPassword.statusCode, 400)
  t.match(noPassword.json().error.details, { field: 'password' })
  t.equal((await off({ password: b.o.password, code: '000000' })).statusCode, 400)
  t.equal((await off({ password: b.o.password })).statusCode, 400, 'the code is required')
  t.equal((await off({ password: b.o.password, code: codes[0] })).statusCode, 200, 'a recovery code does')
  t.equal((await off({ password: b.o.password, code: codes[1] })).statusCode, 404, 'already off')
  const login = await b.login()
  t.ok(login.json().data.accessToken)
})

t.test('the secret and the recovery codes are not in the database in clear', async (t) => {
  const b = await bench(t)
  const { secret, codes } = await turnOn(b)
  const row = b.app.hearth.db.prepare('SELECT secret_sealed FROM totp_factors').get() as { secret_sealed: string }
  t.notOk(row.secret_sealed.includes(secret))
  t.match(row.secret_sealed, /^v1\./, 'sealed with the credential-encryption key')
  b.app.hearth.db.pragma('wal_checkpoint(TRUNCATE)')
  const files = ['hearth.db', 'hearth.db-wal'].map((f) => {
    try {
      return readFileSync(join(b.app.dataDir, f)).toString('latin1')
    } catch {
      return ''
    }
  })
  for (const text of files) {
    t.notOk(text.includes(secret), 'no secret in the database file')
    for (const c of codes) t.notOk(text.includes(c) || text.includes(c.replace(/-/g, '')), 'no recovery code in clear')
  }
})

t.test('the API refuses 2FA management to credentials that are not the user', async (t) => {
  const b = await bench(t)
  const setup = await b.app.inject({
    method: 'POST',
    url: '/api/v1/auth/2fa/totp/setup',
    payload: { password: b.o.password },
    headers: auth(b.app.systemToken),
  })
  t.equal(setup.statusCode, 200, 'the system token acts for the sole user')
  const key = await b.post('/admin/api-keys', { scope: 'agent' }, b.o.token)
  const agent = await b.post('/auth/2fa/totp/setup', { password: b.o.password }, key.json().data.key)
  t.equal(agent.statusCode, 403)
  t.equal(agent.json().error.code, 'INSUFFICIENT_SCOPE')
})

t.test('every path to tokens honours the second factor: password change, refresh of older sessions', async (t) => {
  const b = await bench(t)
  const before = (await b.login()).json().data
  const { secret } = await turnOn(b)
  t.equal(
    (await b.post('/auth/refresh', { refresh_token: before.refreshToken })).statusCode,
    401,
    'a session from before 2FA cannot refresh',
  )
  t.equal(
    (await b.app.inject({ method: 'GET', url: '/api/v1/auth/sessions', headers: auth(before.accessToken) })).statusCode,
    401,
    'nor use its access token',
  )

  const change = { current_password: b.o.password, new_password: 'a newer password 3' }
  const bySystem = await b.post('/auth/password', change, b.app.systemToken)
  t.equal(bySystem.statusCode, 403, 'the system token cannot turn a password into a session past the second factor')
  const bySession = await b.post('/auth/password', change, b.o.token)
  t.equal(bySession.statusCode, 200, bySession.body)
  const login = await b.post('/auth/login', { email: b.o.email, password: change.new_password })
  t.equal(login.json().data.mfa_required, true, 'a password change leaves 2FA on')
  b.clock.now += STEP
  t.equal((await b.post('/auth/login/mfa', { mfa_token: login.json().data.mfa_token, code: appCode(secret, b.clock.now) })).statusCode, 200)
})
