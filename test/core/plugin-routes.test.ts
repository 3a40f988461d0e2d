import t from 'tap'
import { definePlugin, type RouteEntry, Type } from '../../core/plugin-api.js'
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
