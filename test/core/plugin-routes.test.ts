import t from 'tap'
import { definePlugin, HttpError, type RouteEntry, Type } from '../../core/plugin-api.js'
import records from '../../plugins/records/index.js'
import { auth, build, owner } from '../helper.js'

t.test('api.routes: a plugin reads another plugin’s route by operationId, schemas as declared', async (t) => {
  let seen: { create?: RouteEntry; custom?: RouteEntry; hidden?: RouteEntry; unknown?: RouteEntry } = {}
  const reader = definePlugin({ name: 'reader', version: '1.0.0', apiVersion: '^1.0.0', dependencies: ['records'] }, async (app, api) => {
    app.get('/hidden', { schema: { hide: true } }, async () => ({ ok: true }))
    app.get('/probe', { schema: { summary: 'Probe', response: { 200: Type.Object({ ok: Type.Boolean() }) } } }, async () => {
      seen = {
        create: api.routes.get('notes.create'),
        custom: api.routes.get('notes.updateCustom'),
        hidden: api.routes.get('reader.getHidden'),
        unknown: api.routes.get('notes.explode'),
      }
      return { ok: true }
    })
  })
  const app = await build(t, { plugins: [records, reader] })
  const probe = await app.inject({ url: '/api/v1/reader/probe', headers: auth((await owner(app)).token) })
  t.equal(probe.statusCode, 200)
  t.match(seen.create, { operationId: 'notes.create', method: 'POST', url: '/api/v1/notes', config: { scope: 'records' } })
  t.same((seen.create?.schema.body as { required?: string[] }).required, ['content'], 'the body schema the route validates with')
  t.notOk(JSON.stringify(seen.create?.schema.response?.['201']).includes('"meta"'), '2xx as declared, no envelope added')
  t.match(seen.custom, { method: 'PATCH', url: '/api/v1/notes/:id/custom' })
  t.equal(seen.hidden, undefined, 'hidden routes are not documented, not listed')
  t.equal(seen.unknown, undefined)
})

t.test('synchronous handlers: enveloped like async ones (value, list, nothing, reply sent, thrown error)', async (t) => {
  const Item = Type.Object({ n: Type.Number() })
  const inline = definePlugin({ name: 'inline', version: '1.0.0', apiVersion: '^1.0.0' }, async (app) => {
    app.get('/one', { schema: { response: { 200: Item } } }, () => ({ n: 1 }))
    app.get(
      '/page',
      { schema: { response: { 200: Type.Object({ items: Type.Array(Item), total: Type.Number() }) } }, config: { envelope: 'list' } },
      () => ({
        items: [{ n: 1 }, { n: 2 }],
        total: 2,
      }),
    )
    app.delete('/nothing', () => undefined)
    app.get('/sent', (_request, reply) => reply.code(202).send({ data: { n: 3 } }))
    app.get('/thrown', () => {
      throw new HttpError('NOT_FOUND', 'no such thing')
    })
    app.get('/later', { schema: { response: { 200: Item } } }, async () => ({ n: 4 }))
  })
  const app = await build(t, { plugins: [inline] })
  const headers = auth((await owner(app)).token)
  const get = (url: string, method: 'GET' | 'DELETE' = 'GET') => app.inject({ method, url: `/api/v1/inline${url}`, headers })
  t.same((await get('/one')).json(), { data: { n: 1 } })
  t.match((await get('/page')).json(), { data: [{ n: 1 }, { n: 2 }], meta: { total: 2, limit: 2, offset: 0 } })
  const nothing = await get('/nothing', 'DELETE')
  t.equal(nothing.statusCode, 204)
  t.equal(nothing.body, '')
  const sent = await get('/sent')
  t.equal(sent.statusCode, 202)
  t.same(sent.json(), { data: { n: 3 } })
  const thrown = await get('/thrown')
  t.equal(thrown.statusCode, 404)
  t.match(thrown.json(), { error: { code: 'NOT_FOUND', message: 'no such thing' } })
  t.same((await get('/later')).json(), { data: { n: 4 } })
})
