import t from 'tap'
import type { Test } from 'tap'
import { addUser, apiKey, auth, build, owner, type TestApp, type TestContext } from '../helper.js'

/**
 * What a key may do is bounded by the people behind it: an admin cannot become the owner through a
 * key, a member's key reads only that member's records, and an agent key reads records, search, DNS,
 * storage and network and nothing else. Each test is an attack a household member could try.
 */

/** Pro tier for everyone, so a refusal below comes from roles and scopes, never from the tier. */
async function household(t: TestContext) {
  const app = await build(t, { env: { HEARTH_TIER: 'pro', HEARTH_LOG_LEVEL: 'error' } })
  const o = await owner(app)
  const admin = await addUser(app, o.token, { role: 'admin' })
  const alice = await addUser(app, o.token)
  const bob = await addUser(app, o.token)
  return { app, o, admin, alice, bob }
}

const note = async (t: Test, app: TestApp, token: string, title: string) => {
  const res = await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth(token), payload: { title, content: 'private' } })
  t.equal(res.statusCode, 201, `note ${title} created`)
}

const code = (res: { json(): { error?: { code?: string } } }) => res.json().error?.code

t.test('an admin cannot become owner through a system key', async (t) => {
  const { app, o, admin } = await household(t)

  const minted = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/api-keys',
    headers: auth(admin.token),
    payload: { scope: 'system' },
  })
  t.equal(minted.statusCode, 403, 'only an owner creates system keys')
  t.equal(code(minted), 'FORBIDDEN')
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/admin/api-keys?scope=system', headers: auth(o.token) })).json().data.length, 0)

  // A system key the owner made and handed to the admin still never acts for the owner.
  const handed = await apiKey(app, o.token, { scope: 'system', user_id: admin.userId })
  const promote = await app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${admin.userId}`,
    headers: auth(handed, { 'x-svc-user-id': o.userId }),
    payload: { role: 'owner' },
  })
  t.equal(promote.statusCode, 403, 'a key never acts for a user above the one holding it')
  t.equal(code(promote), 'FORBIDDEN')
  const disable = await app.inject({
    method: 'PATCH',
    url: `/api/v1/admin/users/${o.userId}`,
    headers: auth(handed, { 'x-svc-user-id': o.userId }),
    payload: { disabled: true },
  })
  t.equal(disable.statusCode, 403, 'nor disables the owner')
  const roles = (await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: auth(o.token) })).json().data
  t.same(
    roles.filter((u: { role: string }) => u.role === 'owner').map((u: { id: string }) => u.id),
    [o.userId],
    'still one owner, the real one',
  )
  t.notOk(roles.find((u: { id: string }) => u.id === o.userId).disabled)

  // Acting for itself or for someone below stays the admin CLI's path.
  const asSelf = await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: auth(handed, { 'x-svc-user-id': admin.userId }) })
  t.equal(asSelf.statusCode, 200, 'the admin’s system key acts for the admin')
})

t.test('an admin makes no key that acts for the owner', async (t) => {
  const { app, o, admin } = await household(t)
  const forOwner = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/api-keys',
    headers: auth(admin.token),
    payload: { scope: 'sync', user_id: o.userId },
  })
  t.equal(forOwner.statusCode, 403, 'a key for a user above its maker is refused')
  t.equal(code(forOwner), 'FORBIDDEN')
  const ownersKey = await apiKey(app, o.token, { scope: 'agent' })
  const id = (await app.inject({ method: 'GET', url: '/api/v1/admin/api-keys', headers: auth(o.token) })).json().data[0].id
  const revoke = await app.inject({ method: 'DELETE', url: `/api/v1/admin/api-keys/${id}`, headers: auth(admin.token) })
  t.equal(revoke.statusCode, 403, 'nor revokes the owner’s keys')
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(ownersKey) })).statusCode, 200, 'the key still works')
})

t.test("a member's sync key reads that member's records only", async (t) => {
  const { app, o, alice, bob } = await household(t)
  await note(t, app, o.token, 'owner secret')
  await note(t, app, bob.token, 'bob secret')
  await note(t, app, alice.token, 'alice own')
  const sync = await apiKey(app, o.token, { scope: 'sync', user_id: alice.userId })

  for (const [who, id] of [
    ['bob', bob.userId],
    ['the owner', o.userId],
  ] as const) {
    const res = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(sync, { 'x-svc-user-id': id }) })
    t.equal(res.statusCode, 403, `naming ${who} is refused`)
    t.equal(code(res), 'FORBIDDEN')
    t.notOk(res.body.includes('secret'), `nothing of ${who}'s in the answer`)
  }
  const own = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(sync) })
  t.equal(own.statusCode, 200, 'without the header it acts for its holder')
  t.same(
    own.json().data.map((n: { title: string }) => n.title),
    ['alice own'],
  )
  const named = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(sync, { 'x-svc-user-id': alice.userId }) })
  t.equal(named.statusCode, 200, 'naming its holder is fine')

  // An admin's sync key still serves the household (a sync service run by the admin), below the owner.
  const admins = await addUser(app, o.token, { role: 'admin' })
  const adminSync = await apiKey(app, o.token, { scope: 'sync', user_id: admins.userId })
  const forBob = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(adminSync, { 'x-svc-user-id': bob.userId }) })
  t.equal(forBob.statusCode, 200)
  const forOwner = await app.inject({ method: 'GET', url: '/api/v1/notes', headers: auth(adminSync, { 'x-svc-user-id': o.userId }) })
  t.equal(forOwner.statusCode, 403, 'never for the owner')
})

t.test('agent keys read records, search, DNS, storage and network, and nothing else', async (t) => {
  const { app, o } = await household(t)
  const agent = await apiKey(app, o.token, { scope: 'agent' })
  const refused = [
    '/api/v1/ai/settings',
    '/api/v1/ai/index',
    '/api/v1/digest',
    '/api/v1/digest/settings',
    '/api/v1/sync/connectors',
    '/api/v1/photos',
    '/api/v1/photos/index',
    '/api/v1/hal/network/proxy/routes',
    '/api/v1/proxy/subdomain',
    '/api/v1/hal/network/ssl/status',
    '/api/v1/hal/network/vpn/status',
    '/api/v1/api-keys/mine',
    '/api/v1/admin/users',
  ]
  for (const url of refused) {
    const res = await app.inject({ method: 'GET', url, headers: auth(agent) })
    t.equal(res.statusCode, 403, `GET ${url}: 403`)
    t.equal(code(res), 'INSUFFICIENT_SCOPE', `GET ${url}: INSUFFICIENT_SCOPE`)
  }
  // /metrics asks for a token from anywhere but loopback.
  const metrics = await app.inject({ method: 'GET', url: '/metrics', headers: auth(agent), remoteAddress: '192.0.2.10' })
  t.equal(metrics.statusCode, 403, 'an owner’s agent key reads no metrics')
  t.equal(code(metrics), 'INSUFFICIENT_SCOPE')

  for (const url of [
    '/api/v1/notes',
    '/api/v1/contacts?search=x',
    '/api/v1/dns/zones',
    '/api/v1/dns/templates',
    '/api/v1/network/interfaces',
  ]) {
    const res = await app.inject({ method: 'GET', url, headers: auth(agent) })
    t.equal(res.statusCode, 200, `GET ${url}: read`)
  }
  const storage = await app.inject({ method: 'GET', url: '/api/v1/hal/storage/status', headers: auth(agent) })
  t.not(code(storage), 'INSUFFICIENT_SCOPE', 'storage is read')
  const write = await app.inject({ method: 'POST', url: '/api/v1/dns/zones', headers: auth(agent), payload: { zone: 'x.test' } })
  t.equal(code(write), 'INSUFFICIENT_SCOPE', 'DNS is read only')
})

t.test('the system token keeps owner rights for whoever it names', async (t) => {
  const { app, o, alice } = await household(t)
  const sys = auth(app.systemToken, { 'x-svc-user-id': alice.userId })
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: sys })).statusCode, 200)
  const minted = await app.inject({
    method: 'POST',
    url: '/api/v1/admin/api-keys',
    headers: auth(app.systemToken, { 'x-svc-user-id': o.userId }),
    payload: { scope: 'system' },
  })
  t.equal(minted.statusCode, 201, 'the NAS OS (system token) may create system keys')
})
