import t from 'tap'
import { household } from './sharing-app.js'

/**
 * Invitations inside the household through the HTTP API: an event naming a member among its
 * attendees is theirs to read (lists, ranged lists, by id, search) and to answer, nothing more;
 * the organizer hears the answer; taking the member off the event takes it from them at once.
 */

const at = (day: number, hour = 18) => new Date(Date.UTC(2026, 10, day, hour)).toISOString()

t.test('an invited member reads the event, answers it, and loses it when taken off', async (t) => {
  const { members, events } = await household(t)
  const [parent, kid, other] = members
  const made = await parent.call('POST', '/events', {
    title: 'Dinner at grandma',
    start_at: at(20),
    calendar_name: 'Family',
    attendees: [
      { email: kid.email.toUpperCase(), status: 'accepted' },
      { email: 'friend@elsewhere.test', name: 'A friend' },
    ],
  })
  t.equal(made.status, 201)
  const dinner = made.body.data
  t.equal(dinner.attendees[0].status, 'pending', "a member's answer is theirs: the organizer cannot give it")

  const got = await kid.call('GET', `/events/${dinner.id}`)
  t.equal(got.status, 200, 'the attendee reads it by id')
  t.equal(got.body.data.owner_id, parent.id, "as the organizer's event")
  const listed = await kid.call('GET', '/events')
  t.same(
    listed.body.data.map((e: { id: string }) => e.id),
    [dinner.id],
    'in their list',
  )
  t.equal((await kid.call('GET', '/events?owner=me')).body.meta.total, 0, 'not among their own')
  const ranged = await kid.call('GET', `/events?from=${at(19, 0)}&to=${at(21, 0)}`)
  t.equal(ranged.body.meta.total, 1, 'in their ranged list')
  t.equal((await kid.call('GET', '/events?search=grandma')).body.meta.total, 1, 'found by search')
  t.equal((await other.call('GET', `/events/${dinner.id}`)).status, 404, 'a member not invited: 404')
  t.equal((await other.call('GET', '/events')).body.meta.total, 0)

  // Answers: attendees only; nothing else changes.
  t.equal((await kid.call('PATCH', `/events/${dinner.id}`, { title: 'Mine now' })).status, 403, 'an attendee editing: 403')
  t.equal((await kid.call('DELETE', `/events/${dinner.id}`)).status, 403, 'an attendee deleting: 403')
  t.equal((await other.call('POST', `/events/${dinner.id}/rsvp`, { status: 'accepted' })).status, 404, 'not invited: 404')
  t.equal((await parent.call('POST', `/events/${dinner.id}/rsvp`, { status: 'accepted' })).status, 403, 'the organizer, no attendee: 403')
  t.equal((await kid.call('POST', `/events/${dinner.id}/rsvp`, { status: 'maybe' })).status, 400, 'an unknown answer: 400')
  t.equal((await kid.call('POST', `/events/${dinner.id}/rsvp`, { status: 'pending' })).status, 400, 'pending is no answer: 400')
  t.equal((await kid.call('POST', '/events/00000000-0000-4000-8000-000000000000/rsvp', { status: 'accepted' })).status, 404)
  events.length = 0
  const answered = await kid.call('POST', `/events/${dinner.id}/rsvp`, { status: 'accepted' })
  t.equal(answered.status, 200)
  t.match(answered.body.data.attendees, [{ status: 'accepted' }, { email: 'friend@elsewhere.test', status: 'pending' }])
  t.equal(answered.body.data.title, 'Dinner at grandma')
  const told = events.filter((e) => e.type === 'event.updated')
  t.equal(told.length, 1, 'the organizer gets event.updated')
  t.equal(told[0]?.userId, parent.id, "on the organizer's event")
  t.equal((await parent.call('GET', `/events/${dinner.id}`)).body.data.attendees[0].status, 'accepted', 'the organizer sees the answer')

  // The organizer rewrites the list (as clients do, statuses and all): the answer stays.
  const moved = await parent.call('PATCH', `/events/${dinner.id}`, {
    start_at: at(21),
    attendees: [{ email: kid.email, status: 'declined' }],
  })
  t.equal(moved.body.data.attendees[0].status, 'accepted', 'a rewrite by the organizer keeps the member answer')

  // Taken off the event: gone at once.
  await parent.call('PATCH', `/events/${dinner.id}`, { attendees: [] })
  t.equal((await kid.call('GET', `/events/${dinner.id}`)).status, 404, 'taken off: 404 at once')
  t.equal((await kid.call('GET', '/events')).body.meta.total, 0, 'and out of their list')
  t.equal((await kid.call('POST', `/events/${dinner.id}/rsvp`, { status: 'declined' })).status, 404)
})

t.test('a recurring invitation expands for the attendee; a reader of a shared calendar who is no attendee cannot answer', async (t) => {
  const { members } = await household(t)
  const [parent, kid, other] = members
  const series = (
    await parent.call('POST', '/events', {
      title: 'Piano lesson',
      start_at: at(2, 16),
      recurrence: { freq: 'WEEKLY', count: 4 },
      attendees: [{ email: kid.email }],
    })
  ).body.data
  const month = await kid.call('GET', `/events?from=2026-11-01&to=2026-11-30`)
  t.equal(month.body.meta.total, 4, 'four occurrences in the attendee ranged list')
  t.ok(month.body.data.every((o: { recurrence_id: string; owner_id: string }) => o.recurrence_id === series.id && o.owner_id === parent.id))
  await parent.call('POST', '/shares', { kind: 'calendar', name: 'default', with: other.id, access: 'read' })
  t.equal((await other.call('GET', `/events/${series.id}`)).status, 200, 'a reader of the calendar reads it')
  const notInvited = await other.call('POST', `/events/${series.id}/rsvp`, { status: 'accepted' })
  t.equal(notInvited.status, 403, 'but answers nothing: 403')
  t.equal(notInvited.body.error.code, 'FORBIDDEN')
  t.equal((await kid.call('POST', `/events/${series.id}/rsvp`, { status: 'tentative' })).body.data.attendees[0].status, 'tentative')
  t.equal(
    (await kid.call('POST', '/events', { title: 'x', start_at: at(3), owner_id: parent.id })).status,
    403,
    'no writing in their calendar',
  )
})
