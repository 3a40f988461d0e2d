import t from 'tap'
import { apiKey, auth } from '../../../test/helper.js'
import { bench } from './records-app.js'

t.test('agent and sync API keys may read and write records (the scope table in docs/security.md)', async (t) => {
  const { app, token } = await bench(t)
  for (const scope of ['agent', 'sync'] as const) {
    const key = await apiKey(app, token, { scope })
    const send = (method: string, url: string, payload?: object) =>
      app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers: auth(key, { 'x-svc-source': 'agent-x' }), payload })
    const created = await send('POST', '/notes', { content: `by ${scope}` })
    t.equal(created.statusCode, 201, `${scope}: create`)
    const id = created.json().data.id
    t.equal(created.json().data.source, 'agent-x')
    t.equal((await send('PATCH', `/notes/${id}`, { pinned: true })).statusCode, 200, `${scope}: patch`)
    t.equal((await send('PATCH', `/notes/${id}/custom`, { a: 1 })).statusCode, 200, `${scope}: custom`)
    t.equal((await send('POST', `/notes/${id}/archive`)).statusCode, 200, `${scope}: archive`)
    t.equal((await send('GET', '/notes?archived=true')).json().meta.total >= 1, true, `${scope}: list`)
    t.equal((await send('DELETE', `/notes/${id}`)).statusCode, 200, `${scope}: delete`)
    t.equal((await send('POST', `/notes/${id}/restore`)).statusCode, 200, `${scope}: restore`)
    const ev = await send('POST', '/events', { title: 'x', start_at: '2026-11-20T10:00:00Z' })
    t.equal(ev.statusCode, 201, `${scope}: events`)
    const c = await send('POST', '/contacts', { display_name: 'x' })
    t.equal(c.statusCode, 201, `${scope}: contacts`)
  }
  const none = await app.inject({ method: 'GET', url: '/api/v1/notes' })
  t.equal(none.statusCode, 401)
  t.equal(none.json().error.code, 'UNAUTHORIZED')
})
