import t from 'tap'
import { auth, build, changePassword, owner, turnOnTwoFactor } from '../helper.js'

/**
 * The sign-in budgets hold against guesses sent together. Checking a password takes a trip to the
 * thread pool; an attempt used to be counted only when its answer was known, so every guess of a
 * burst passed the check first (40 wrong passwords sent at once were all checked against a budget
 * of 10, each answering 401).
 */

const LIMIT = 3
const BURST = 12

const tally = (codes: number[]) => codes.reduce<Record<number, number>>((n, c) => ({ ...n, [c]: (n[c] ?? 0) + 1 }), {})

t.test('a burst of wrong passwords from one client: at most the budget is checked, the rest 429', async (t) => {
  const app = await build(t, { env: { HEARTH_LOGIN_FAIL_LIMIT: String(LIMIT) } })
  const o = await owner(app)
  const login = (password: string, remoteAddress: string) =>
    app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password }, remoteAddress })

  const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => login(`wrong guess ${i}`, '203.0.113.9')))
  const counts = tally(burst.map((r) => r.statusCode))
  t.equal(counts[401], LIMIT, `${LIMIT} guesses checked: ${JSON.stringify(counts)}`)
  t.equal(counts[429], BURST - LIMIT, 'the rest refused before their password was looked at')
  t.equal((await login(o.password, '203.0.113.9')).statusCode, 429, 'that client stays refused, right password or not')
  t.equal((await login(o.password, '198.51.100.7')).statusCode, 200, "the owner's own client is not locked out")
})

t.test('right passwords are taken back: one client signing in again and again is never refused', async (t) => {
  const app = await build(t, { env: { HEARTH_LOGIN_FAIL_LIMIT: String(LIMIT) } })
  const o = await owner(app)
  for (let i = 0; i < 3 * LIMIT + 1; i++) {
    const res = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password: o.password } })
    if (res.statusCode !== 200) t.fail(`sign-in ${i + 1}: ${res.statusCode}`)
  }
  const wrong = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { email: o.email, password: 'not it' } })
  t.equal(wrong.statusCode, 401, 'a first wrong password after them is still checked')
})

t.test("a stolen session's burst of current-password guesses from many addresses: the user's budget holds", async (t) => {
  const app = await build(t, { env: { HEARTH_LOGIN_FAIL_LIMIT: String(LIMIT) } })
  const o = await owner(app)
  const burst = await Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      changePassword(app, o.token, `guess number ${i}`, 'the thief’s new password', `198.51.100.${i + 1}`),
    ),
  )
  const counts = tally(burst.map((r) => r.statusCode))
  t.equal(counts[400], LIMIT, `${LIMIT} guesses checked: ${JSON.stringify(counts)}`)
  t.equal(counts[429], BURST - LIMIT)
})

t.test('a burst of wrong passwords at turning two-factor sign-in off: the code step budget holds', async (t) => {
  const clock = { now: Date.UTC(2026, 10, 28, 8) }
  const app = await build(t, { now: () => clock.now, env: { HEARTH_LOGIN_FAIL_LIMIT: String(LIMIT) } })
  const o = await owner(app)
  t.equal((await turnOnTwoFactor(app, o, clock.now)).status, 200)
  const burst = await Promise.all(
    Array.from({ length: BURST }, (_, i) =>
      app.inject({
        method: 'DELETE',
        url: '/api/v1/auth/2fa/totp',
        headers: auth(o.token),
        payload: { password: `guess number ${i}`, code: '000000' },
      }),
    ),
  )
  const counts = tally(burst.map((r) => r.statusCode))
  t.equal(counts[400], LIMIT, `${LIMIT} guesses checked: ${JSON.stringify(counts)}`)
  t.equal(counts[429], BURST - LIMIT)
})
