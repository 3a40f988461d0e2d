import t from 'tap'
import { definePlugin, Type } from '../../core/plugin-api.js'
import { apiKey, build, owner } from '../helper.js'

/** Plugin API 1.1: `root: true` mounts a plugin's routes at the server's root; `api.auth.basic` signs in by HTTP Basic. */
const rooted = definePlugin({ name: 'rooted', version: '1.0.0', apiVersion: '^1.1.0', root: true, prefix: '/proto' }, async (app, api) => {
  app.get('/hello', { config: { auth: false, envelope: 'none' }, schema: { hide: true } }, async (req) => ({
    hello: api.auth.basic(req.headers.authorization, req.ip, 'dav').email,
  }))
  app.get(
    '/guarded',
    { schema: { summary: 'A guarded root route', response: { 200: Type.Object({ ok: Type.Boolean() }) } } },
    async () => ({ ok: true }),
  )
})

t.test('root: true mounts at /<prefix>, not under /api/v1; routes keep the pipeline', async (t) => {
  const app = await build(t, { plugins: [rooted] })
  const o = await owner(app)
  const key = await apiKey(app, o.token, { scope: 'dav' })
  const basic = `Basic ${Buffer.from(`${o.email}:${key}`).toString('base64')}`
  const hello = await app.inject({ method: 'GET', url: '/proto/hello', headers: { authorization: basic } })
  t.equal(hello.statusCode, 200)
  t.same(hello.json(), { hello: o.email })
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/proto/hello', headers: { authorization: basic } })).statusCode, 404)
  const refused = await app.inject({ method: 'GET', url: '/proto/hello' })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['www-authenticate'], 'Basic realm="Hearth"')
  t.equal((await app.inject({ method: 'GET', url: '/proto/guarded' })).statusCode, 401, 'the guard still applies')
  const guarded = await app.inject({ method: 'GET', url: '/proto/guarded', headers: { authorization: `Bearer ${o.token}` } })
  t.same(guarded.json(), { data: { ok: true } }, 'and the envelope')
  const other = await apiKey(app, o.token, { scope: 'system' })
  const wrongScope = await app.inject({
    method: 'GET',
    url: '/proto/hello',
    headers: { authorization: `Basic ${Buffer.from(`${o.email}:${other}`).toString('base64')}` },
  })
  t.equal(wrongScope.statusCode, 401, 'a key of another scope does not sign in by Basic')
})
