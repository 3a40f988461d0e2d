import t from 'tap'
import { auth, build } from '../helper.js'
import { appCode } from '../totp-reference.js'

/**
 * Answers carrying a secret (tokens, recovery codes, the TOTP secret, a new app password, key or
 * invitation) say `Cache-Control: no-store`, so a browser or proxy cache never keeps them.
 */

const START = Date.UTC(2026, 10, 27, 12, 0, 0)

t.test('every answer with a secret is sent with Cache-Control: no-store; others are not marked', async (t) => {
  const clock = { now: START }
  const app = await build(t, { now: () => clock.now, env: { HEARTH_DISABLED_PLUGINS: 'proxy' } })
  const email = 'owner@example.test'
  const password = 'correct horse battery'
  const post = (url: string, payload?: object, token?: string) =>
    app.inject({ method: 'POST', url: `/api/v1${url}`, ...(payload ? { payload } : {}), headers: token ? auth(token) : {} })
  const seen: Array<[string, number, unknown]> = []
  const mark = (name: string, res: Awaited<ReturnType<typeof post>>) => {
    seen.push([name, res.statusCode, res.headers['cache-control']])
    return res
  }

  const setup = mark('setup', await post('/auth/setup', { email, password, name: 'Owner' }))
  const token = setup.json().data.accessToken as string
  const login = mark('login', await post('/auth/login', { email, password }))
  mark('refresh', await post('/auth/refresh', { refresh_token: login.json().data.refreshToken }))
  mark('app password', await post('/auth/app-passwords', { name: 'laptop' }, token))
  mark('davx5', await post('/devices/davx5', { name: 'phone' }, token))
  mark('api key', await post('/admin/api-keys', { scope: 'agent' }, token))
  mark('invitation', await post('/admin/invitations', { email: 'member@example.test' }, token))
  const changed = mark('password', await post('/auth/password', { current_password: password, new_password: 'a new password 5' }, token))
  const next = changed.json().data.accessToken as string
  const totp = mark('totp setup', await post('/auth/2fa/totp/setup', { password: 'a new password 5' }, next))
  const code = appCode(totp.json().data.secret, clock.now)
  mark('recovery codes', await post('/auth/2fa/totp/confirm', { password: 'a new password 5', code }, next))
  const challenge = mark('mfa challenge', await post('/auth/login', { email, password: 'a new password 5' }))
  clock.now += 30_000
  mark(
    'mfa login',
    await post('/auth/login/mfa', { mfa_token: challenge.json().data.mfa_token, code: appCode(totp.json().data.secret, clock.now) }),
  )

  t.same(
    seen.filter(([, status, cache]) => status >= 300 || cache !== 'no-store'),
    [],
    'each succeeded and each said no-store (the old code said nothing)',
  )
  const status = await app.inject({ method: 'GET', url: '/api/v1/auth/2fa', headers: auth(next) })
  t.equal(status.statusCode, 200)
  t.not(status.headers['cache-control'], 'no-store', 'an answer without a secret is not marked')
})
