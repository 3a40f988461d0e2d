import t from 'tap'
import { definePlugin, type HearthApi, Type } from '../../core/plugin-api.js'
import { declaredResponses, serializerKeys } from '../../core/response-keys.js'
import { auth, build, owner } from '../helper.js'

t.test('serializerKeys: a single 2xx code becomes 2xx; the declared map stays readable', async (t) => {
  const ok = { type: 'object' }
  const down = { type: 'null' }
  const one = serializerKeys({ 200: ok })
  t.same(Object.keys(one), ['2xx'])
  t.equal(one['2xx'], ok)
  t.same(declaredResponses(one), { 200: ok })
  const withError = serializerKeys({ 200: ok, 503: down })
  t.same(Object.keys(withError), ['503', '2xx'], 'other codes are kept')
  t.equal(withError['503'], down)
  t.same(Object.keys(declaredResponses(withError) ?? {}), ['200', '503'])
  const several = { 200: ok, 202: ok, 400: down }
  t.equal(serializerKeys(several), several, 'several 2xx codes: unchanged')
  const ranged = { '2xx': ok }
  t.equal(serializerKeys(ranged), ranged, 'already a range: unchanged')
  const errorsOnly = { 404: down }
  t.equal(serializerKeys(errorsOnly), errorsOnly)
  t.equal(declaredResponses(errorsOnly), errorsOnly, 'a map serializerKeys did not make is its own declaration')
  t.equal(declaredResponses(undefined), undefined)
})

t.test('a route’s single 2xx code: same answers, same document, same api.routes', async (t) => {
  const Item = Type.Object({ n: Type.Number() })
  let api: HearthApi | undefined
  const keys = definePlugin({ name: 'keys', version: '1.0.0', apiVersion: '^1.0.0' }, async (app, given) => {
    api = given
    app.get('/one', { schema: { response: { 200: Item } } }, async () => ({ n: 1, secret: 'x' }))
    app.post('/made', { schema: { response: { 201: Item } } }, async (_request, reply) => {
      reply.code(201)
      return { n: 2, secret: 'x' }
    })
    app.delete('/gone', { schema: { response: { 204: Type.Null() } } }, async () => undefined)
    // An undeclared 2xx code with a body: written by the declared 2xx schema (docs/plugins.md).
    app.get(
      '/other',
      { schema: { response: { 200: Item } } },
      (_request, reply) => reply.code(202 as 200).send({ data: { n: 3, secret: 'x' } } as never) as never,
    )
  })
  const app = await build(t, { plugins: [keys] })
  const headers = auth((await owner(app)).token)
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string) => app.inject({ method, url: `/api/v1/keys${url}`, headers })

  const one = await call('GET', '/one')
  t.equal(one.statusCode, 200)
  t.equal(one.body, '{"data":{"n":1}}', 'the declared schema writes the answer')
  const made = await call('POST', '/made')
  t.equal(made.statusCode, 201)
  t.equal(made.body, '{"data":{"n":2}}')
  const gone = await call('DELETE', '/gone')
  t.equal(gone.statusCode, 204)
  t.equal(gone.body, '')
  const other = await call('GET', '/other')
  t.equal(other.statusCode, 202)
  t.equal(other.body, '{"data":{"n":3}}', 'an undeclared 2xx code takes the declared 2xx schema')
  const missing = await app.inject({ url: '/api/v1/keys/one' })
  t.equal(missing.statusCode, 401)
  t.match(missing.json(), { error: { code: 'UNAUTHORIZED' } }, 'errors keep their envelope')

  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }
  t.same(Object.keys(doc.paths['/api/v1/keys/one']?.get?.responses ?? {}), ['200', '400', '401', '403', '429', '500'])
  t.ok(doc.paths['/api/v1/keys/made']?.post?.responses['201'])
  t.ok(doc.paths['/api/v1/keys/gone']?.delete?.responses['204'])
  t.notOk(JSON.stringify(doc).includes('2XX'))
  t.same(Object.keys(api?.routes.get('keys.getOne')?.schema.response ?? {}), ['200'], 'api.routes: as declared')
})
