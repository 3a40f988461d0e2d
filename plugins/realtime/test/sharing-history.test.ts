import t from 'tap'
import { addUser, auth, owner, type TestApp } from '../../../test/helper.js'
import { listening, TestClient } from './ws-client.js'

/**
 * A share opens a collection as it is from then on, not its past: a member resuming from an old
 * cursor (since=0 included) is not replayed what the owner's records were before the share was
 * made: a note's earlier drafts, an event that was in the shared calendar and left it, or one
 * that sat in it before anyone was let in.
 */
const call = async (app: TestApp, token: string, method: string, path: string, payload?: object) => {
  const res = await app.inject({ method: method as 'GET', url: `/api/v1${path}`, headers: auth(token), payload })
  if (res.statusCode >= 300) throw new Error(`${method} ${path} → ${res.statusCode} ${res.body}`)
  return res.json().data
}

t.test('a resume from before a share replays nothing of the collection’s past', async (t) => {
  const { app, url } = await listening(t)
  const parent = await owner(app)
  const kid = await addUser(app, parent.token)
  const note = await call(app, parent.token, 'POST', '/notes', { content: 'Draft: the surprise is a puppy' })
  await call(app, parent.token, 'PATCH', `/notes/${note.id}`, { content: 'Shopping: milk' })
  const party = await call(app, parent.token, 'POST', '/events', {
    title: 'Surprise party for the kid',
    start_at: '2026-11-20T18:00:00Z',
    calendar_name: 'Family',
  })
  await call(app, parent.token, 'PATCH', `/events/${party.id}`, { calendar_name: 'Private' })
  await call(app, parent.token, 'POST', '/shares', { kind: 'note', note_id: note.id, with: kid.userId, access: 'read' })
  const share = await call(app, parent.token, 'POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.userId, access: 'read' })

  const resumed = await TestClient.open(`${url}?since=0`, auth(kid.token))
  await resumed.next((m) => m.type === 'share.created' && m.id === share.id)
  const leaked = resumed.messages.filter((m) => m.type.startsWith('note.') || m.type.startsWith('event.'))
  t.same(
    leaked.map((m) => `${m.type} ${m.data?.title ?? m.data?.content}`),
    [],
    'no event of the note or the calendar from before the shares',
  )

  // From the share on, the changes are replayed as they come.
  const cursor = resumed.messages.at(-1)?.seq as number
  resumed.close()
  await call(app, parent.token, 'PATCH', `/notes/${note.id}`, { content: 'Shopping: milk, eggs' })
  const later = await TestClient.open(`${url}?since=${cursor}`, auth(kid.token))
  t.ok(
    await later.next((m) => m.type === 'note.updated' && m.data.content === 'Shopping: milk, eggs'),
    'a change after the share is replayed',
  )
  later.close()
})
