import t from 'tap'
import { addUser, auth, owner, type TestApp } from '../../../test/helper.js'
import { listening, TestClient } from './ws-client.js'

/**
 * Realtime and invitations: a member named among an event's attendees hears of it (with the
 * organizer's owner_id) while they are named, and of nothing once taken off; the organizer hears
 * the attendee's answer.
 */
const call = async (app: TestApp, token: string, method: string, path: string, payload?: object) => {
  const res = await app.inject({ method: method as 'GET', url: `/api/v1${path}`, headers: auth(token), payload })
  if (res.statusCode >= 300) throw new Error(`${method} ${path} → ${res.statusCode} ${res.body}`)
  return res.json().data
}

t.test('an attendee hears of the event while invited; the organizer hears the answer', async (t) => {
  const { app, url } = await listening(t)
  const parent = await owner(app)
  const kid = await addUser(app, parent.token)
  const stranger = await addUser(app, parent.token)
  const kidSocket = await TestClient.open(url, auth(kid.token))
  const parentSocket = await TestClient.open(url, auth(parent.token))
  const strangerSocket = await TestClient.open(url, auth(stranger.token))

  const dinner = await call(app, parent.token, 'POST', '/events', {
    title: 'Dinner',
    start_at: '2026-11-20T18:00:00Z',
    attendees: [{ email: kid.email }],
  })
  const heard = await kidSocket.next((m) => m.type === 'event.created' && m.id === dinner.id)
  t.equal(heard.data.owner_id, parent.userId, "the attendee hears of it, as the organizer's")

  await call(app, kid.token, 'POST', `/events/${dinner.id}/rsvp`, { status: 'accepted' })
  const answered = await parentSocket.next((m) => m.type === 'event.updated' && m.id === dinner.id)
  t.equal(answered.data.attendees[0].status, 'accepted', 'the organizer hears the answer')

  await call(app, parent.token, 'PATCH', `/events/${dinner.id}`, { attendees: [] })
  const marker = await call(app, parent.token, 'POST', '/events', {
    title: 'Marker',
    start_at: '2026-11-21T18:00:00Z',
    attendees: [{ email: kid.email }],
  })
  await kidSocket.next((m) => m.type === 'event.created' && m.id === marker.id)
  t.notOk(
    kidSocket.messages.some((m) => m.type === 'event.updated' && m.id === dinner.id && m.data.attendees.length === 0),
    'taken off: the change that removed them is not theirs to hear',
  )
  t.notOk(
    strangerSocket.messages.some((m) => m.type.startsWith('event.')),
    'a member not invited hears nothing',
  )
  kidSocket.close()
  parentSocket.close()
  strangerSocket.close()
})
