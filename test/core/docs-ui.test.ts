import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import t from 'tap'
import { build } from '../helper.js'

// The docs UI is set up on its first request (core/docs-ui.ts): what a browser gets must be what
// @fastify/swagger-ui registered at start served (pages, assets with their caching headers, HEAD,
// the redirect, the document), and a missing asset the daemon's own 404 envelope.
const uiStatic = join(dirname(createRequire(import.meta.url).resolve('@fastify/swagger-ui')), 'static')

t.test('the docs UI answers as swagger-ui did', async (t) => {
  const app = await build(t)

  for (const url of ['/api/v1/docs', '/api/v1/docs/']) {
    const page = await app.inject({ method: 'GET', url })
    t.equal(page.statusCode, 200, `${url} is served`)
    t.match(page.headers['content-type'], /^text\/html/)
    t.match(page.body, /swagger-ui/, `${url} is the swagger-ui page`)
    t.ok(page.headers['x-request-id'], 'the daemon headers are on it')
  }

  const css = await app.inject({ method: 'GET', url: '/api/v1/docs/static/swagger-ui.css' })
  t.equal(css.statusCode, 200)
  t.match(css.headers['content-type'], /^text\/css/)
  t.ok(css.rawPayload.equals(readFileSync(join(uiStatic, 'swagger-ui.css'))), 'the asset is the package file, byte for byte')
  t.ok(css.headers.etag && css.headers['last-modified'], 'served with its validators')
  const again = await app.inject({
    method: 'GET',
    url: '/api/v1/docs/static/swagger-ui.css',
    headers: { 'if-none-match': String(css.headers.etag) },
  })
  t.equal(again.statusCode, 304, 'a cached asset is not sent again')

  const head = await app.inject({ method: 'HEAD', url: '/api/v1/docs/static/swagger-ui.css' })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '', 'HEAD has no body')

  const init = await app.inject({ method: 'GET', url: '/api/v1/docs/static/swagger-initializer.js' })
  t.equal(init.statusCode, 200)
  t.match(init.body, /\/api\/v1\/docs\/json|\.\/json/, 'the initializer points the UI at the document')

  const redirect = await app.inject({ method: 'GET', url: '/api/v1/docs/static/index.html' })
  t.equal(redirect.statusCode, 302)
  t.equal(redirect.headers.location, '/api/v1/docs/')

  const missing = await app.inject({ method: 'GET', url: '/api/v1/docs/static/nothing-here.js' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().error.code, 'NOT_FOUND', 'a missing asset gets the error envelope')

  const doc = await app.inject({ method: 'GET', url: '/api/v1/docs/json' })
  t.same(doc.json(), app.swagger(), 'the document the UI shows')
  const yaml = await app.inject({ method: 'GET', url: '/api/v1/docs/yaml' })
  t.equal(yaml.statusCode, 200)
  t.match(yaml.headers['content-type'], /yaml/)
  t.match(yaml.body, /^openapi: 3\.0\.3/m)

  const listed = Object.keys((app.swagger() as { paths: Record<string, unknown> }).paths)
  t.notOk(
    listed.some((p) => p.startsWith('/api/v1/docs')),
    'the docs routes are not operations of the document',
  )
})
