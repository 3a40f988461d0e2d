import t from 'tap'
import { addUser, auth, owner, type TestApp } from '../../../test/helper.js'
import { listening, TestClient } from './ws-client.js'

/**
 * Realtime and sharing: a member receives the events of the records shared with them (with
 * owner_id), never the others; an unshare stops them at once, live and in a resume's replay.
 */
const call = async (app: TestApp, token: string, method: string, path: string, payload?: object) => {
  const res = await app.inject({ method: method as 'GET', url: `/api/v1${path}`, headers: auth(token), payload })
  if (res.statusCode >= 300) throw new Error(`${method} ${path} → ${res.statusCode} ${res.body}`)
  return res.json().data
}

const event = (title: string, calendar_name: string) => ({ title, start_at: '2026-11-20T18:00:00Z', calendar_name })

t.test('a sharee hears of the shared calendar only, until it is unshared', async (t) => {
  const { app, url } = await listening(t)
  const parent = await owner(app)
  const kid = await addUser(app, parent.token)
  const stranger = await addUser(app, parent.token)
  const kidSocket = await TestClient.open(url, auth(kid.token))
  const strangerSocket = await TestClient.open(url, auth(stranger.token))
  const share = await call(app, parent.token, 'POST', '/shares', { kind: 'calendar', name: 'Family', with: kid.userId, access: 'read' })
  t.ok(await kidSocket.next((m) => m.type === 'share.created' && m.id === share.id), 'the sharee hears of the share')

  const dinner = await call(app, parent.token, 'POST', '/events', event('Family dinner', 'Family'))
  await call(app, parent.token, 'POST', '/events', event('Budget review', 'Work'))
  const heard = await kidSocket.next((m) => m.type === 'event.created' && m.id === dinner.id)
  t.equal(heard.data.owner_id, parent.userId, 'with owner_id')
  const last = await call(app, parent.token, 'POST', '/events', event('Last one', 'Family'))
  await kidSocket.next((m) => m.type === 'event.created' && m.id === last.id)
  t.notOk(
    kidSocket.messages.some((m) => m.data?.title === 'Budget review'),
    'nothing of another calendar',
  )
  t.notOk(
    strangerSocket.messages.some((m) => m.type.startsWith('event.') || m.type.startsWith('share.')),
    'nothing for a member it is not shared with',
  )

  // Disconnected, the kid misses a change; then the calendar is unshared before they come back.
  const cursor = (kidSocket.messages.at(-1)?.seq ?? 0) as number
  kidSocket.close()
  await kidSocket.closed()
  await call(app, parent.token, 'PATCH', `/events/${dinner.id}`, { title: 'Family dinner at 8' })
  const resumed = await TestClient.open(`${url}?since=${cursor}`, auth(kid.token))
  t.ok(
    resumed.messages.some((m) => m.type === 'event.updated' && m.id === dinner.id),
    'a resume replays the shared event it missed',
  )
  resumed.close()

  await call(app, parent.token, 'DELETE', `/shares/${share.id}`)
  const afterUnshare = await TestClient.open(`${url}?since=${cursor}`, auth(kid.token))
  t.equal(afterUnshare.of('ready')[0]?.data.replay, 1, 'after the unshare, a resume from the same cursor replays the share.deleted only')
  t.notOk(
    afterUnshare.messages.some((m) => m.type.startsWith('event.')),
    'and none of the calendar’s events',
  )
  const marker = await call(app, kid.token, 'POST', '/events', event('Own', 'default'))
  await call(app, parent.token, 'PATCH', `/events/${dinner.id}`, { title: 'Family dinner at 9' })
  const own = await afterUnshare.next((m) => m.type === 'event.created' && m.id === marker.id)
  await call(app, kid.token, 'PATCH', `/events/${marker.id}`, { title: 'Own, later' })
  await afterUnshare.next((m) => m.type === 'event.updated' && m.id === marker.id)
  t.ok(own)
  t.notOk(
    afterUnshare.messages.some((m) => m.id === dinner.id),
    'live: the owner’s change after the unshare is not delivered',
  )
  afterUnshare.close()
  await afterUnshare.closed()
  // Resumed again from before the share ended: the owner's changes made since (before and after the unshare) stay out.
  const later = await TestClient.open(`${url}?since=${cursor}`, auth(kid.token))
  t.ok(
    later.messages.some((m) => m.type === 'event.updated' && m.id === marker.id),
    'a later resume replays the sharee’s own changes',
  )
  t.notOk(
    later.messages.some((m) => m.id === dinner.id),
    'and none of the owner’s, the change made after the unshare included',
  )
  later.close()
  strangerSocket.close()
})

t.test('a shared note: its sharee hears of edits and of its erasure', async (t) => {
  const { app, url } = await listening(t)
  const parent = await owner(app)
  const kid = await addUser(app, parent.token)
  const note = await call(app, parent.token, 'POST', '/notes', { content: 'Groceries' })
  await call(app, parent.token, 'POST', '/shares', { kind: 'note', note_id: note.id, with: kid.email, access: 'write' })
  const socket = await TestClient.open(url, auth(kid.token))
  await call(app, parent.token, 'PATCH', `/notes/${note.id}`, { content: 'Groceries: eggs' })
  t.ok(await socket.next((m) => m.type === 'note.updated' && m.data.content === 'Groceries: eggs'))
  await call(app, parent.token, 'DELETE', `/notes/${note.id}?permanent=true`)
  const gone = await socket.next((m) => m.type === 'note.deleted' && m.id === note.id)
  t.same(gone.data, { id: note.id, owner_id: parent.userId }, 'the erasure, before the share goes with it')
  t.ok(await socket.next((m) => m.type === 'share.deleted'))
  socket.close()
})
