import t from 'tap'
import { definePlugin, type PluginInstance } from '../../core/plugin-api.js'
import records from '../../plugins/records/index.js'
import type { RecordsPluginService } from '../../plugins/records/public.js'
import { auth, build, owner } from '../helper.js'

t.test('api.services: a plugin reaches the records service it depends on; its writes are the REST API records', async (t) => {
  const importer = definePlugin(
    { name: 'importer', version: '1.0.0', apiVersion: '^1.0.0', dependencies: ['records'], scope: 'records' },
    async (app: PluginInstance, api) => {
      const { service } = api.services.get<RecordsPluginService>('records')
      app.post('/note', async (req) => service.create(req.userId, 'notes', { content: '# From a plugin\nbody' }))
    },
  )
  const app = await build(t, { plugins: [records, importer] })
  const user = await owner(app)
  const made = await app.inject({ method: 'POST', url: '/api/v1/importer/note', headers: auth(user.token) })
  t.equal(made.statusCode, 200)
  const id = made.json().data.id
  const read = await app.inject({ url: `/api/v1/notes/${id}`, headers: auth(user.token) })
  t.equal(read.json().data.title, 'From a plugin')
})

t.test('api.services: using a service without declaring the dependency stops the start', async (t) => {
  const stranger = definePlugin({ name: 'stranger', version: '1.0.0', apiVersion: '^1.0.0' }, async (_app, api) => {
    api.services.get('records')
  })
  await t.rejects(build(t, { plugins: [records, stranger] }), /must list records in its dependencies/)
})
