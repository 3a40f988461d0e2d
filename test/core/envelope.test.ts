import t from 'tap'
import { errorCatalogue, listErrors } from '../../core/errors.js'
import { auth, build, owner } from '../helper.js'

const HELLO_DIR = new URL('../third-party/', import.meta.url).pathname

t.test('headers: request id echoed or generated, version and tier on every answer', async (t) => {
  const app = await build(t)
  const given = await app.inject({ method: 'GET', url: '/api/v1/health', headers: { 'x-request-id': 'trace-123' } })
  t.equal(given.headers['x-request-id'], 'trace-123')
  const generated = await app.inject({ method: 'GET', url: '/api/v1/health' })
  t.match(generated.headers['x-request-id'], /^[0-9a-f-]{36}$/)
  const hostile = await app.inject({ method: 'GET', url: '/api/v1/health', headers: { 'x-request-id': 'a b\u00e9<script>' } })
  t.match(hostile.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'unsafe ids are replaced')
  t.match(given.headers['x-svc-version'], /^\d+\.\d+\.\d+$/)
  t.equal(given.headers['x-svc-tier'], 'free')
  const missing = await app.inject({ method: 'GET', url: '/api/v1/nope' })
  t.ok(missing.headers['x-request-id'], 'errors carry the request id too')
})

t.test('envelopes: single, list with meta and tier, errors', async (t) => {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: HELLO_DIR } })
  const o = await owner(app)
  const created = await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: auth(o.token), payload: { text: 'hi' } })
  t.equal(created.statusCode, 201)
  t.same(Object.keys(created.json()), ['data'])
  for (const text of ['a', 'b', 'c'])
    await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: auth(o.token), payload: { text } })
  const page = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings?limit=2&offset=1', headers: auth(o.token) })
  t.same(page.json().meta, { total: 4, limit: 2, offset: 1 })
  t.equal(page.json().tier, 'free')
  t.equal(page.json().data.length, 2)
  const defaults = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings', headers: auth(o.token) })
  t.same(defaults.json().meta, { total: 4, limit: 20, offset: 0 })

  const badLimit = await app.inject({ method: 'GET', url: '/api/v1/hello/greetings?limit=500', headers: auth(o.token) })
  t.equal(badLimit.statusCode, 400)
  t.same(badLimit.json().error.details, { field: 'limit', constraint: 'maximum' })
  t.equal(badLimit.json().error.code, 'INVALID_QUERY')
  const badType = await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: auth(o.token), payload: { text: 5 } })
  t.same(badType.json().error, { code: 'VALIDATION_ERROR', message: 'text must be string', details: { field: 'text', constraint: 'type' } })
  const required = await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: auth(o.token), payload: {} })
  t.same(required.json().error.details, { field: 'text', constraint: 'required' })
})

t.test('transport errors stay in the envelope and never leak internals', async (t) => {
  const app = await build(t, { env: { HEARTH_PLUGINS_DIR: HELLO_DIR, HEARTH_BODY_LIMIT: '2048' } })
  const o = await owner(app)
  const h = { ...auth(o.token), 'content-type': 'application/json' }
  const malformed = await app.inject({ method: 'POST', url: '/api/v1/hello/greetings', headers: h, payload: '{"text": ' })
  t.equal(malformed.statusCode, 400)
  t.equal(malformed.json().error.code, 'VALIDATION_ERROR')
  const big = await app.inject({
    method: 'POST',
    url: '/api/v1/hello/greetings',
    headers: h,
    payload: JSON.stringify({ text: 'x'.repeat(5000) }),
  })
  t.equal(big.statusCode, 413)
  t.equal(big.json().error.code, 'PAYLOAD_TOO_LARGE')
  const media = await app.inject({
    method: 'POST',
    url: '/api/v1/hello/greetings',
    headers: { ...auth(o.token), 'content-type': 'text/csv' },
    payload: 'a,b',
  })
  t.equal(media.statusCode, 415)
  t.equal(media.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')
  const proto = await app.inject({
    method: 'POST',
    url: '/api/v1/hello/greetings',
    headers: h,
    payload: '{"text":"x","__proto__":{"admin":true}}',
  })
  t.equal(proto.statusCode, 400, 'prototype poisoning is refused')
  const boom = await app.inject({ method: 'GET', url: '/api/v1/hello/boom', headers: auth(o.token) })
  t.equal(boom.statusCode, 500)
  t.same(boom.json(), { error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } })
  t.notOk(boom.body.includes('hunter2'), 'no internals in 500 answers')
  const unknown = await app.inject({ method: 'DELETE', url: '/api/v1/does/not/exist', headers: auth(o.token) })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.json().error.code, 'NOT_FOUND')
})

t.test('OpenAPI document and docs page', async (t) => {
  const app = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.match(doc.openapi, /^3\./)
  for (const path of ['/api/v1/auth/login', '/api/v1/admin/api-keys', '/api/v1/api-keys/mine', '/api/v1/health'])
    t.ok(doc.paths[path], `documents ${path}`)
  const login = doc.paths['/api/v1/auth/login'].post
  t.ok(login.requestBody.content['application/json'].schema.properties.email, 'request bodies come from the TypeBox schemas')
  const ok = login.responses['200'].content['application/json'].schema
  // With a second factor on, the login answers a challenge instead of the tokens: both are documented.
  const answers = ok.properties.data.anyOf as Array<{ properties: Record<string, unknown> }>
  t.ok(
    answers.some((a) => a.properties.accessToken),
    'responses are documented in their envelope',
  )
  t.ok(
    answers.some((a) => a.properties.mfa_required),
    'the second-factor challenge too',
  )
  t.match(login.responses['401'].description, /UNAUTHORIZED|RATE_LIMITED/, 'errors documented by status with their codes')
  t.ok(login.responses['429'], 'the throttle of a public route is documented')
  const docs = await app.inject({ method: 'GET', url: '/api/v1/docs' })
  t.ok([200, 302].includes(docs.statusCode), 'docs page served')
})

t.test('error catalogue, docs/api.md and the spec table stay in step', async (t) => {
  const { readFileSync } = await import('node:fs')
  const docs = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8')
  await build(t) // every built-in plugin registers its own codes
  for (const { code, status } of listErrors())
    t.match(docs, new RegExp(`\\| ${status} \\| ${code} \\|`), `${code} (${status}) is documented`)
  for (const [code, entry] of Object.entries(errorCatalogue)) {
    t.match(docs, new RegExp(`\\| ${entry.status} \\| ${code} \\|`), `${code} documented with status ${entry.status}`)
  }
  const spec = [
    'VALIDATION_ERROR',
    'INVALID_QUERY',
    'USER_CONTEXT_REQUIRED',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'FEATURE_NOT_AVAILABLE',
    'INSUFFICIENT_SCOPE',
    'NOT_FOUND',
    'CONFLICT',
    'FILE_EXISTS',
    'UNPROCESSABLE',
    'RATE_LIMITED',
    'INTERNAL_ERROR',
    'SERVICE_UNAVAILABLE',
  ]
  for (const code of spec) t.ok(code in errorCatalogue, `${code} of the spec is in the catalogue`)
})

t.test('/health never shows a failing check’s exception text', async (t) => {
  const { definePlugin } = await import('../../core/plugin-api.js')
  const leaky = definePlugin({ name: 'leaky', version: '1.0.0', apiVersion: '^1.0.0' }, async (_app, api) => {
    api.health.register('proxy', () => {
      throw new Error('connect ECONNREFUSED /var/lib/hearth/secret.sock password=hunter2')
    })
  })
  const app = await build(t, { plugins: [leaky] })
  const res = await app.inject({ method: 'GET', url: '/api/v1/health' })
  t.equal(res.statusCode, 200)
  t.equal(res.json().data.components.proxy.status, 'unavailable')
  t.notMatch(res.body, /ECONNREFUSED|secret\.sock|hunter2/, 'the exception stays in the log')
})
