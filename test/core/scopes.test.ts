import t from 'tap'
import { addUser, apiKey, auth, build, owner, type TestContext } from '../helper.js'

const HELLO_DIR = new URL('../third-party/', import.meta.url).pathname

/** An instance with the example plugin, whose /hello routes are 'general' scope. */
async function setup(t: TestContext) {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: HELLO_DIR } })
  const o = await owner(app)
  return { app, o }
}

t.test('system token: single-user auto context, multi-user needs X-Svc-User-Id', async (t) => {
  const { app, o } = await setup(t)
  const sys = auth(app.systemToken)
  const single = await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: sys, payload: { text: 'hi' } })
  t.equal(single.statusCode, 201, 'single-user mode resolves the user automatically')
  const owned = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: auth(o.token) })
  t.equal(owned.json().meta.total, 1, 'the write landed in the only user’s data')

  const u = await addUser(app, o.token)
  const missing = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: sys })
  t.equal(missing.statusCode, 400)
  t.equal(missing.json().error.code, 'USER_CONTEXT_REQUIRED')
  const asUser = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: { ...sys, 'x-svc-user-id': u.userId } })
  t.equal(asUser.statusCode, 200)
  t.equal(asUser.json().meta.total, 0, 'impersonates the named user')
  const badId = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: { ...sys, 'x-svc-user-id': 'not-a-uuid' } })
  t.equal(badId.statusCode, 400)
  const admin = await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: sys })
  t.equal(admin.json().error?.code, 'USER_CONTEXT_REQUIRED', 'admin routes too need the user context in multi-user mode')
  const asOwner = await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: { ...sys, 'x-svc-user-id': o.userId } })
  t.equal(asOwner.statusCode, 200)
})

t.test('API key scopes: agent ignores the identity header and reads no general route, system and sync impersonate', async (t) => {
  const { app, o } = await setup(t)
  const u = await addUser(app, o.token)
  const agent = await apiKey(app, o.token, { scope: 'agent' })
  const system = await apiKey(app, o.token, { scope: 'system' })
  const sync = await apiKey(app, o.token, { scope: 'sync' })
  await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: auth(u.token), payload: { text: 'from u' } })

  const agentRead = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: auth(agent, { 'x-svc-user-id': u.userId }) })
  t.equal(agentRead.statusCode, 403, 'agent keys reach no general route, reads included')
  t.equal(agentRead.json().error.code, 'INSUFFICIENT_SCOPE')
  const agentWrite = await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: auth(agent), payload: { text: 'x' } })
  t.equal(agentWrite.statusCode, 403)
  t.equal(agentWrite.json().error.code, 'INSUFFICIENT_SCOPE')
  await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth(u.token), payload: { title: 'from u', content: 'x' } })
  const agentNotes = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(agent, { 'x-svc-user-id': u.userId }) })
  t.equal(agentNotes.json().meta.total, 0, 'agent key always acts as its owner')
  const agentAdmin = await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: auth(agent) })
  t.equal(agentAdmin.json().error.code, 'INSUFFICIENT_SCOPE', 'agent keys never reach /admin')

  const sysNoHeader = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: auth(system) })
  t.equal(sysNoHeader.json().error.code, 'USER_CONTEXT_REQUIRED')
  const sysAsU = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: auth(system, { 'x-svc-user-id': u.userId }) })
  t.equal(sysAsU.json().meta.total, 1, 'system key impersonates the named user')
  const sysAdminNoHeader = await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: auth(system) })
  t.equal(sysAdminNoHeader.json().error.code, 'USER_CONTEXT_REQUIRED', 'no owner rights for a system key without a user')
  const sysAdminAsU = await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: auth(system, { 'x-svc-user-id': u.userId }) })
  t.equal(sysAdminAsU.statusCode, 403, 'a system key acting for a plain user gets no admin rights')
  t.equal(sysAdminAsU.json().error.code, 'FORBIDDEN')
  const sysAdminAsOwner = await app.inject({
    method: 'GET',
    url: '/api/v1/admin/users',
    headers: auth(system, { 'x-svc-user-id': o.userId }),
  })
  t.equal(sysAdminAsOwner.statusCode, 200, 'the admin CLI path: a system key acting for an admin')

  const syncGeneral = await app.inject({
    method: 'GET',
    url: '/api/v1/hello/greetings',
    headers: auth(sync, { 'x-svc-user-id': u.userId }),
  })
  t.equal(syncGeneral.json().error.code, 'INSUFFICIENT_SCOPE', 'sync keys reach records only')
})

t.test('a user never sees another user’s data', async (t) => {
  const { app, o } = await setup(t)
  const u = await addUser(app, o.token)
  await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: auth(o.token), payload: { text: 'owner only' } })
  const theirs = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: auth(u.token) })
  t.same(theirs.json().data, [])
  const key = await apiKey(app, o.token)
  const uKeys = await app.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: auth(u.token) })
  t.notOk(JSON.stringify(uKeys.json()).includes(key.slice(0, 12)), 'keys/mine lists only the caller’s keys')
})

t.test('tier and capability guards', async (t) => {
  const { app, o } = await setup(t)
  const free = await app.inject({ method: 'GET', url: '/api/v1/hello/pro', headers: auth(o.token) })
  t.equal(free.statusCode, 403)
  t.equal(free.json().error.code, 'FEATURE_NOT_AVAILABLE')
  t.equal(free.headers['x-svc-tier'], 'free')
  await app.inject({ method: 'PATCH', url: `/api/v1/admin/users/${o.userId}`, headers: auth(o.token), payload: { tier: 'pro' } })
  const pro = await app.inject({ method: 'GET', url: '/api/v1/hello/pro', headers: auth(o.token) })
  t.equal(pro.statusCode, 200)
  t.equal(pro.headers['x-svc-tier'], 'pro')

  const noDriver = await app.inject({ method: 'GET', url: '/api/v1/hello/needs-widget', headers: auth(o.token) })
  t.equal(noDriver.statusCode, 503, 'no driver of the kind: 503')
  t.equal(noDriver.json().error.code, 'SERVICE_UNAVAILABLE')
  app.hearth.hal.register({
    manifest: { name: 'still', kind: 'widget', priority: 1, capabilities: ['canSpin'] },
    probe: async () => ({ supported: true, capabilities: [] }),
    create: async () => ({}),
  })
  await app.hearth.hal.detect('widget')
  const lacking = await app.inject({ method: 'GET', url: '/api/v1/hello/needs-widget', headers: auth(o.token) })
  t.equal(lacking.statusCode, 422, 'a driver without the flag: 422')
  t.equal(lacking.json().error.details.driver, 'still')
})

t.test('an instance set to pro unlocks pro features unless a user row overrides', async (t) => {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: HELLO_DIR, HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/hello/pro', headers: auth(o.token) })).statusCode, 200)
  await app.inject({ method: 'PATCH', url: `/api/v1/admin/users/${o.userId}`, headers: auth(o.token), payload: { tier: 'free' } })
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/hello/pro', headers: auth(o.token) })).statusCode, 403)
})

t.test('a manifest scope reaches the guard of every route of the plugin', async (t) => {
  const { definePlugin } = await import('../../core/plugin-api.js')
  const notebook = definePlugin({ name: 'notebook', version: '1.0.0', apiVersion: '^1.0.0', scope: 'records' }, async (app) => {
    app.post('/', async (_req, reply) => {
      reply.code(201)
      return { ok: true }
    })
  })
  const app = await build(t, { plugins: [notebook] })
  const o = await owner(app)
  const agent = await apiKey(app, o.token, { scope: 'agent' })
  const sync = await apiKey(app, o.token, { scope: 'sync' })
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/notebook', headers: auth(agent) })).statusCode, 201, 'agent keys write records')
  t.equal((await app.inject({ method: 'POST', url: '/api/v1/notebook', headers: auth(sync) })).statusCode, 201, 'sync keys write records')
})
