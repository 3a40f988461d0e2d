import t from 'tap'
import dav from '../../plugins/dav/index.js'
import records from '../../plugins/records/index.js'
import { addUser, auth, build, changePassword, owner, type TestApp, type TestUser } from '../helper.js'

/**
 * A new password ends the member's app passwords with their sessions. A stolen session (a phished
 * one, or a laptop left signed in) makes an app password in one request: before, it kept reading and
 * writing the member's calendars and contacts over /dav/ after the member changed the password and
 * signed every session out. API keys, made by admins for agents and services, stay.
 */

const PROPFIND = '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:current-user-principal/></d:prop></d:propfind>'

async function bench(t: Parameters<typeof build>[0]) {
  const app = await build(t, { plugins: [records as never, dav as never] })
  const o = await owner(app)
  const member = await addUser(app, o.token)
  const propfind = (email: string, password: string) =>
    app
      .inject({
        method: 'PROPFIND' as 'GET',
        url: '/dav/',
        payload: PROPFIND,
        headers: {
          authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`,
          depth: '0',
          'content-type': 'application/xml',
        },
      })
      .then((r) => r.statusCode)
  return { app, o, member, propfind }
}

/** A device added by the member, and an agent key an admin made for them. */
async function credentials(app: TestApp, o: TestUser, member: TestUser) {
  const device = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/app-passwords',
    headers: auth(member.token),
    payload: { name: 'Phone' },
  })
  const agent = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/api-keys',
    headers: auth(o.token),
    payload: { user_id: member.userId, scope: 'agent', label: 'assistant' },
  })
  return { device: device.json().data.password as string, agent: agent.json().data.key as string }
}

t.test("a password change ends the member's app passwords; their API keys stay", async (t) => {
  const { app, o, member, propfind } = await bench(t)
  const { device, agent } = await credentials(app, o, member)
  t.equal(await propfind(member.email, device), 207, 'the device syncs')

  const changed = await changePassword(app, member.token, member.password, 'a new password after the leak')
  t.equal(changed.statusCode, 200)
  t.equal(await propfind(member.email, device), 401, 'the app password no longer signs in')
  const session = changed.json().data.accessToken as string
  const left = await app.inject({ method: 'GET', url: '/api/v1/auth/app-passwords', headers: auth(session) })
  t.same(left.json().data, [], 'none listed')
  const notes = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(agent) })
  t.equal(notes.statusCode, 200, 'the agent key an admin made still works')

  const again = await app.inject({ method: 'POST', url: '/api/v1/auth/app-passwords', headers: auth(session), payload: { name: 'Phone' } })
  t.equal(await propfind(member.email, again.json().data.password), 207, 'the device is added again with a new one')
})

t.test('a password reset ends them too; another member keeps theirs', async (t) => {
  const { app, o, member, propfind } = await bench(t)
  const { device } = await credentials(app, o, member)
  const ownersDevice = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/app-passwords',
    headers: auth(o.token),
    payload: { name: 'Mac' },
  })
  const reset = app.hearth.authService.createResetToken(member.email)
  const done = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/reset-password',
    payload: { token: reset?.token, new_password: 'a reset password here' },
  })
  t.equal(done.statusCode, 200)
  t.equal(await propfind(member.email, device), 401)
  t.equal(await propfind(o.email, ownersDevice.json().data.password), 207, "the owner's device is not touched")
})
