import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { addUser, auth, build, owner } from '../../../test/helper.js'

/**
 * The service subdomain against a local server speaking the protocol documented in
 * plugins/proxy/subdomain.ts: status for any signed-in user, a request for pro admins only.
 */
async function service(t: { teardown(fn: () => void): void }) {
  const held = new Set<string>(['taken'])
  let current: Record<string, unknown> | null = null
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      res.setHeader('content-type', 'application/json')
      if (req.method === 'GET') return current ? res.end(JSON.stringify(current)) : res.writeHead(404).end('{}')
      const name = (JSON.parse(body || '{}') as { name?: string }).name ?? 'box-7f3a'
      if (held.has(name)) return res.writeHead(409).end('{"error":"taken"}')
      held.add(name)
      current = { subdomain: `${name}.hearth.example`, instance_ip: '203.0.113.10', active: true, expiry: '2027-11-24T00:00:00Z' }
      res.writeHead(201).end(JSON.stringify(current))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => server.close())
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/subdomain`
}

t.test('free tier: 403 FEATURE_NOT_AVAILABLE; status still readable', async (t) => {
  const app = await build(t, { env: { HEARTH_SERVICE_SUBDOMAIN_URL: await service(t) } })
  const o = await owner(app)
  const res = await app.inject({ method: 'POST', url: '/api/v1/proxy/subdomain', headers: auth(o.token), payload: {} })
  t.equal(res.statusCode, 403)
  t.equal(res.json().error.code, 'FEATURE_NOT_AVAILABLE')
  t.same((await app.inject({ method: 'GET', url: '/api/v1/proxy/subdomain', headers: auth(o.token) })).json().data, {
    subdomain: null,
    instance_ip: null,
    active: false,
    expiry: null,
  })
})

t.test('pro: an admin requests a subdomain, the status follows; names taken are 409; members 403', async (t) => {
  const app = await build(t, { env: { HEARTH_TIER: 'pro', HEARTH_SERVICE_SUBDOMAIN_URL: await service(t) } })
  const o = await owner(app)
  const member = await addUser(app, o.token)
  const post = (payload: object | undefined, token = o.token) =>
    app.inject({ method: 'POST', url: '/api/v1/proxy/subdomain', headers: auth(token), ...(payload ? { payload } : {}) })
  t.equal((await post({ name: 'x' }, member.token)).statusCode, 403, 'admins only')
  t.equal((await post({ name: 'taken' })).statusCode, 409)
  t.equal((await post({ name: 'Not Valid' })).statusCode, 400)
  const got = await post(undefined)
  t.equal(got.statusCode, 200, got.body)
  t.same(got.json().data, {
    subdomain: 'box-7f3a.hearth.example',
    instance_ip: '203.0.113.10',
    active: true,
    expiry: '2027-11-24T00:00:00Z',
  })
  t.match((await app.inject({ method: 'GET', url: '/api/v1/proxy/subdomain', headers: auth(member.token) })).json().data, { active: true })
})

t.test('no endpoint configured, or one that does not answer: 503, never a 500', async (t) => {
  const none = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(none)
  t.equal((await none.inject({ method: 'POST', url: '/api/v1/proxy/subdomain', headers: auth(o.token), payload: {} })).statusCode, 503)
  const down = await build(t, { env: { HEARTH_TIER: 'pro', HEARTH_SERVICE_SUBDOMAIN_URL: 'http://127.0.0.1:1/v1/subdomain' } })
  const p = await owner(down)
  t.equal((await down.inject({ method: 'GET', url: '/api/v1/proxy/subdomain', headers: auth(p.token) })).statusCode, 503)
})
