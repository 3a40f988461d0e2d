import type { AddressInfo } from 'node:net'
import t from 'tap'
import { addUser, auth, build, owner } from '../../../test/helper.js'
import { TestClient } from './ws-client.js'

/**
 * Every row of api.md's Events table, driven through the REST API, arrives
 * on the owner's socket in order with the record as the API returned it,
 * and never on another user's socket. DNS changes use the same hub.
 */
t.test('each record operation emits its event to its owner only', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/ws`
  const o = await owner(app)
  const other = await addUser(app, o.token)
  const mine = await TestClient.open(url, auth(o.token))
  const theirs = await TestClient.open(url, auth(other.token))

  const call = async (method: string, path: string, payload?: object) => {
    const res = await app.inject({
      method: method as 'GET',
      url: `/api/v1${path}`,
      headers: auth(o.token),
      ...(payload ? { payload } : {}),
    })
    t.ok(res.statusCode < 300, `${method} ${path} → ${res.statusCode}`)
    return res.statusCode === 204 ? null : res.json().data
  }
  const expected: Array<{ type: string; id: string; data: unknown }> = []
  const step = async (type: string, method: string, path: string, payload?: object) => {
    const data = await call(method, path, payload)
    expected.push({ type, id: data?.id, data })
    return data
  }

  const note = await step('note.created', 'POST', '/notes', { content: '# Groceries\nmilk' })
  await step('note.updated', 'PATCH', `/notes/${note.id}`, { pinned: true })
  await step('note.updated', 'PATCH', `/notes/${note.id}/custom`, { store: 'corner shop' })
  await step('note.updated', 'POST', `/notes/${note.id}/archive`)
  await step('note.updated', 'POST', `/notes/${note.id}/unarchive`)
  await step('note.deleted', 'DELETE', `/notes/${note.id}`)
  await step('note.restored', 'POST', `/notes/${note.id}/restore`)
  await call('DELETE', `/notes/${note.id}?permanent=true`)
  expected.push({ type: 'note.deleted', id: note.id, data: { id: note.id, owner_id: note.owner_id } })

  for (const [resource, singular, body, patch] of [
    ['contacts', 'contact', { first_name: 'Ada', last_name: 'Lovelace' }, { company: 'Analytical Engines' }],
    ['events', 'event', { title: 'Dentist', start_at: '2026-12-03T14:30:00Z' }, { status: 'tentative' }],
  ] as const) {
    const record = await step(`${singular}.created`, 'POST', `/${resource}`, body)
    await step(`${singular}.updated`, 'PATCH', `/${resource}/${record.id}`, patch)
    await step(`${singular}.updated`, 'PATCH', `/${resource}/${record.id}/custom`, { k: 'v' })
    await step(`${singular}.deleted`, 'DELETE', `/${resource}/${record.id}`)
    await step(`${singular}.restored`, 'POST', `/${resource}/${record.id}/restore`)
  }
  const zone = await step('dns.zone.created', 'POST', '/dns/zones', { zone: 'home.example', mode: 'authoritative' })

  const last = await mine.next((m) => m.type === 'dns.zone.created' && m.id === zone.id)
  t.ok(last)
  const received = mine.messages.filter((m) => m.id !== null).map(({ type, id, data }) => ({ type, id, data }))
  t.same(received, expected, 'every event, in order, with the record as the API returned it')

  await app.inject({ method: 'POST', url: '/api/v1/notes', headers: auth(other.token), payload: { content: 'theirs' } })
  const own = await theirs.next((m) => m.type === 'note.created')
  t.equal(own.data.content, 'theirs')
  t.same(
    theirs.messages.filter((m) => m.id !== null).map((m) => m.type),
    ['note.created'],
    'the other user saw none of the owner’s events',
  )
  mine.close()
  theirs.close()
})

t.test('an import emits one <record>.imported summary event, not one per record', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1/ws`
  const o = await owner(app)
  const c = await TestClient.open(url, auth(o.token))
  await c.subscribe(['contact.*'])
  const vcf = 'BEGIN:VCARD\r\nVERSION:4.0\r\nFN:A\r\nEND:VCARD\r\nBEGIN:VCARD\r\nVERSION:4.0\r\nFN:B\r\nEND:VCARD\r\n'
  const boundary = 'b0undary'
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/contacts/import',
    headers: { ...auth(o.token), 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.vcf"\r\n\r\n${vcf}\r\n--${boundary}--\r\n`,
  })
  const { imported, ids } = res.json().data
  t.equal(imported, 2)
  const summary = await c.next((m) => m.type === 'contact.imported')
  t.same(summary.data, { count: 2, ids, ids_truncated: false })
  t.equal(summary.id, null)
  t.equal(c.of('contact.created').length, 0)
  c.close()
})
