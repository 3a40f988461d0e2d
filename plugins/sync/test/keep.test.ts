import { zipSync, strToU8 } from 'fflate'
import t from 'tap'
import { addUser, auth, build, owner } from '../../../test/helper.js'
import { upload } from '../../records/test/records-app.js'
import { expectProOnly, setTier } from './pro-gate.js'

/** JSON answers, read loosely: the assertions check their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

/** A Google Keep Takeout made here, in Keep's JSON shape; uploaded twice: edits update, removals go to the trash. */
const keepNote = (fields: Record<string, unknown>) =>
  JSON.stringify({
    color: 'DEFAULT',
    isTrashed: false,
    isPinned: false,
    isArchived: false,
    title: '',
    createdTimestampUsec: 1700000000000000,
    userEditedTimestampUsec: 1700000000000000,
    labels: [],
    ...fields,
  })

const takeout = (notes: Record<string, string>) =>
  Buffer.from(
    zipSync({
      ...Object.fromEntries(Object.entries(notes).map(([name, json]) => [`Takeout/Keep/${name}.json`, strToU8(json)])),
      'Takeout/Keep/Shopping.html': strToU8('<html>ignored</html>'),
      'Takeout/archive_browser.html': strToU8('<html></html>'),
    }),
  )

t.test('google_keep: Takeout upload, re-upload updates and deletes', async (t) => {
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const call = async (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: { ...auth(o.token), ...headers },
      payload: payload as string,
    })
    return { status: res.statusCode, body: res.json() }
  }
  const created = await call('POST', '/sync/connectors', { kind: 'google_keep', label: 'Keep' })
  t.equal(created.status, 201)
  t.equal(created.body.data.url, null)
  const id = created.body.data.id
  const run = (zip: Buffer) => {
    const body = upload('takeout.zip', zip, 'application/zip')
    return call('POST', `/sync/connectors/${id}/run`, body.payload, body.headers)
  }

  const first = await run(
    takeout({
      Shopping: keepNote({
        title: 'Shopping',
        listContent: [
          { text: 'Milk', isChecked: false },
          { text: 'Bread', isChecked: true },
        ],
        labels: [{ name: 'home' }],
        isPinned: true,
      }),
      Idea: keepNote({ title: 'Idea', textContent: 'A garden robot', labels: [{ name: 'ideas' }, { name: 'home' }] }),
      Old: keepNote({ title: 'Old', textContent: 'in the trash', isTrashed: true }),
      Filed: keepNote({ textContent: 'archived text', isArchived: true }),
    }),
  )
  t.equal(first.status, 200, JSON.stringify(first.body))
  t.match(first.body.data, { status: 'ok', created: 3, updated: 0, deleted: 0, failed: 0 })
  // Sorted here: the notes list puts pinned notes first.
  const notes = async () =>
    (await call('GET', '/notes?limit=50&archived=false')).body.data.sort((a: Json, b: Json) =>
      String(a.title).localeCompare(String(b.title)),
    )
  const list = await notes()
  t.same(
    list.map((n: Json) => [n.title, n.content, n.tags, n.pinned, n.source]),
    [
      ['Idea', 'A garden robot', ['ideas', 'home'], false, 'google_keep'],
      ['Shopping', '- [ ] Milk\n- [x] Bread', ['home'], true, 'google_keep'],
    ],
  )
  t.equal(list[0].created_at, '2023-11-14T22:13:20.000Z', 'Keep timestamps (microseconds) become the record times')
  const archived = (await call('GET', '/notes?archived=true')).body.data
  t.same(
    archived.map((n: Json) => n.content),
    ['archived text'],
  )

  // Second Takeout: Idea edited, Shopping gone, Filed unchanged.
  const second = await run(
    takeout({
      Idea: keepNote({ title: 'Idea', textContent: 'A garden robot that waters', userEditedTimestampUsec: 1700000100000000 }),
      Filed: keepNote({ textContent: 'archived text', isArchived: true }),
    }),
  )
  t.match(second.body.data, { status: 'ok', created: 0, updated: 1, deleted: 1, unchanged: 1 })
  const after = await notes()
  t.same(
    after.map((n: Json) => [n.id, n.content, n.tags]),
    [[list[0].id, 'A garden robot that waters', []]],
    'the same record, updated',
  )

  // Not an archive, no file, JSON body.
  const junk = await run(Buffer.from('not a zip'))
  t.match(junk.body.error, { code: 'VALIDATION_ERROR', details: { field: 'file', constraint: 'format' } })
  const none = await run(Buffer.from(zipSync({ 'Takeout/Drive/x.txt': strToU8('x') })))
  t.match(none.body.error, { code: 'VALIDATION_ERROR', details: { field: 'file' } })
  const json = await call('POST', `/sync/connectors/${id}/run`, { file: 'x' })
  t.equal(json.status, 415)
  // Nothing was lost by the bad uploads.
  t.equal((await notes()).length, 1)
})

t.test('tier gates: every sync route answers 403 FEATURE_NOT_AVAILABLE to a free user', async (t) => {
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const free = await addUser(app, o.token)
  await setTier(t, app, o.token, free.userId, 'free')
  const id = (
    await app.inject({
      method: 'POST',
      url: '/api/v1/sync/connectors',
      headers: auth(o.token),
      payload: { kind: 'google_keep', label: 'K' },
    })
  ).json().data.id
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/api/v1/sync/connectors'],
    ['POST', '/api/v1/sync/connectors', { kind: 'google_keep', label: 'K' }],
    ['GET', `/api/v1/sync/connectors/${id}`],
    ['DELETE', `/api/v1/sync/connectors/${id}`],
    ['POST', `/api/v1/sync/connectors/${id}/run`],
    ['GET', `/api/v1/sync/connectors/${id}/runs`],
  ]
  await expectProOnly(t, app, free.token, routes)
  // The instance default decides for a user without a tier of their own.
  const freeInstance = await build(t, { env: { HEARTH_TIER: 'free' } })
  const o2 = await owner(freeInstance)
  const res = await freeInstance.inject({ method: 'GET', url: '/api/v1/sync/connectors', headers: auth(o2.token) })
  t.equal(res.json().error.code, 'FEATURE_NOT_AVAILABLE')
})
