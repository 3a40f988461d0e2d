import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { auth, build, owner } from '../../../test/helper.js'

/**
 * One route Caddy refuses never takes the others down, and /health says which
 * and why. Debian's Caddy accepts
 * every route Hearth's validation lets through, so this runs against a local server speaking
 * Caddy's admin API (`POST /load` → 400 with Caddy's error text, `GET /id/<@id>`) that refuses any
 * config holding one particular host.
 */
t.test('the refused route carries Caddy’s reason; the others are loaded and served', async (t) => {
  let loaded = ''
  const caddy = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/load') {
        if (body.includes('refused.home.test')) {
          res.writeHead(400, { 'content-type': 'application/json' })
          return res.end('{"error":"loading config: http app module: start: provisioning handler: refused.home.test is not acceptable"}')
        }
        loaded = body
        return res.writeHead(200).end()
      }
      const id = /^\/id\/(.+)$/.exec(req.url ?? '')?.[1]
      res.writeHead(id && loaded.includes(`"${id}"`) ? 200 : 404).end('{}')
    })
  })
  await new Promise<void>((r) => caddy.listen(0, '127.0.0.1', r))
  t.teardown(() => caddy.close())
  const app = await build(t, { env: { HEARTH_CADDY_ADMIN: `http://127.0.0.1:${(caddy.address() as AddressInfo).port}` } })
  const o = await owner(app)
  const add = (domain: string) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/hal/network/proxy/routes',
      headers: auth(o.token),
      payload: { domain, target: 'http://127.0.0.1:9' },
    })
  await add('first.home.test')
  const bad = await add('refused.home.test')
  await add('last.home.test')
  t.equal(bad.statusCode, 201, 'kept, like every route')
  const routes = (await app.inject({ method: 'GET', url: '/api/v1/hal/network/proxy/routes', headers: auth(o.token) })).json().data
  const byDomain = Object.fromEntries(routes.map((r: { domain: string; error: string | null }) => [r.domain, r.error]))
  t.match(byDomain['refused.home.test'], /refused\.home\.test is not acceptable/, 'Caddy’s reason on the refused route')
  t.equal(byDomain['first.home.test'], null)
  t.equal(byDomain['last.home.test'], null)
  t.ok(
    loaded.includes('first.home.test') && loaded.includes('last.home.test') && !loaded.includes('refused.home.test'),
    'the others are loaded',
  )
  const health = (await app.inject({ method: 'GET', url: '/api/v1/health' })).json().data.components.proxy
  t.equal(health.status, 'degraded', 'a refused route is not healthy')
  t.match(health.message, /Caddy refused 1 of 3 routes \(refused\.home\.test: .*is not acceptable\)/, 'with Caddy’s reason')
})
