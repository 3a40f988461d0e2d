import { join } from 'node:path'
import t from 'tap'
import { call, cli, quietEnv, startDaemon, tempDir } from '../cli-process.js'
import { appCode } from '../totp-reference.js'
import { SoftAuthenticator } from '../webauthn-authenticator.js'

/** `hearth users reset-2fa` and `hearth app-passwords`, through real CLI processes and a running daemon. */
const EMAIL = 'owner@admin.test'
const PASSWORD = 'owner password 1'
const OWNER = ['setup', '--email', EMAIL, '--password', PASSWORD]
const login = (base: string) => call(base, 'POST', '/auth/login', undefined, { email: EMAIL, password: PASSWORD })

t.test('users reset-2fa: a member who lost their phone signs in with the password again; their sessions end, passkeys stay', async (t) => {
  const dataDir = join(tempDir(t), 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(OWNER, env)).code, 0)
  t.equal((await cli(['users', 'reset-2fa', EMAIL], env)).code, 1, 'nothing to reset yet')
  const daemon = await startDaemon(t, dataDir, { HEARTH_PUBLIC_HOSTNAME: 'hearth.test' })
  const token = ((await login(daemon.base)).json.data as { accessToken: string }).accessToken
  const { secret } = (await call(daemon.base, 'POST', '/auth/2fa/totp/setup', token, { password: PASSWORD })).json.data as {
    secret: string
  }
  // The daemon's clock is the real one: a code for now (a step boundary passing is within the one step of drift).
  t.equal(
    (await call(daemon.base, 'POST', '/auth/2fa/totp/confirm', token, { password: PASSWORD, code: appCode(secret, Date.now()) })).status,
    200,
  )
  t.match((await login(daemon.base)).json.data, { mfa_required: true }, '2FA on')
  const laptop = new SoftAuthenticator()
  const options = (await call(daemon.base, 'POST', '/auth/webauthn/register/options', token)).json.data
  const made = await call(daemon.base, 'POST', '/auth/webauthn/register', token, {
    response: laptop.create(options as never, 'https://hearth.test'),
    name: 'Laptop',
  })
  t.equal(made.status, 201, 'a passkey on another device')

  const reset = await cli(['users', 'reset-2fa', EMAIL], env)
  t.equal(reset.code, 0, reset.stderr)
  t.match(reset.stdout, /two-factor sign-in turned off for owner@admin\.test/)
  t.match(reset.stdout, /1 passkey kept/, 'the admin is told the passkeys stay')
  const passkeyLogin = await call(daemon.base, 'POST', '/auth/webauthn/login', undefined, {
    response: laptop.get(
      (await call(daemon.base, 'POST', '/auth/webauthn/login/options', undefined, {})).json.data as never,
      'https://hearth.test',
    ),
  })
  t.equal(passkeyLogin.status, 200, 'the passkey on the device not lost still signs in')
  t.notOk(reset.stdout.includes(secret))
  t.ok(((await login(daemon.base)).json.data as { accessToken?: string }).accessToken, 'the password alone signs in')
  t.equal((await call(daemon.base, 'GET', '/auth/sessions', token)).status, 401, 'the sessions from before ended')
  const missing = await cli(['users', 'reset-2fa', 'nobody@admin.test'], env)
  t.equal(missing.code, 1)
  t.match(missing.stderr, /no user nobody@admin\.test/)
})

t.test('app-passwords create, list, revoke: with the daemon stopped and running', async (t) => {
  const dataDir = join(tempDir(t), 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(OWNER, env)).code, 0)
  const offline = await cli(['app-passwords', 'create', 'Old tablet', '--json'], env)
  t.equal(offline.code, 0, offline.stderr)
  const tablet = JSON.parse(offline.stdout) as { id: string; name: string; password: string }
  t.equal(tablet.name, 'Old tablet')

  const daemon = await startDaemon(t, dataDir)
  const dav = (password: string) =>
    fetch(`${daemon.base.replace(/\/api\/v1$/, '')}/dav/`, {
      method: 'PROPFIND',
      headers: { authorization: `Basic ${Buffer.from(`${EMAIL}:${password}`).toString('base64')}`, depth: '0' },
    })
  const made = await cli(['app-passwords', 'create', 'Phone'], env)
  t.equal(made.code, 0, made.stderr)
  const password = made.stdout.split('\n')[0] as string
  t.equal((await dav(password)).status, 207, 'the printed password signs in to DAV')
  t.equal((await dav(tablet.password)).status, 207, 'the one made offline too')

  const listed = await cli(['app-passwords', 'list'], env)
  t.equal(listed.code, 0, listed.stderr)
  t.match(listed.stdout, /\tPhone\t/)
  t.match(listed.stdout, /\tOld tablet\t/)
  t.notOk(listed.stdout.includes(password), 'never the password again')
  t.match((await cli(['app-passwords', 'list', '--user', EMAIL, '--json'], env)).stdout, /"name": "Phone"/)

  const revoked = await cli(['app-passwords', 'revoke', tablet.id], env)
  t.equal(revoked.code, 0, revoked.stderr)
  t.equal((await dav(tablet.password)).status, 401, 'revoked through the daemon: refused at once')
  t.equal((await dav(password)).status, 207, 'the other device goes on')
  t.equal((await cli(['app-passwords', 'revoke', tablet.id], env)).code, 1, 'already revoked')
  t.equal((await cli(['app-passwords', 'create', ''], env)).code, 1, 'a name is needed')
})
