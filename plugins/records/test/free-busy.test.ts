import t from 'tap'
import { importInto } from './records-app.js'
import { household } from './sharing-app.js'

/**
 * GET /freebusy through the HTTP API: a member's busy times with a weekly series expanded, one
 * occurrence moved by an override and one excluded, and without what does not make them busy
 * (a cancelled event, a declined invitation, a transparent event); never a title; the codes.
 */

const iso = (s: string) => new Date(s).toISOString()

t.test("a member's busy times: series, override, exdate; cancelled, declined and transparent left out", async (t) => {
  const { app, members } = await household(t)
  const [parent, kid, other] = members
  // Mondays 2026-11-02, 09, 16, 23, 30 at 09:00 UTC for an hour; the 16th excluded.
  const series = (
    await parent.call('POST', '/events', {
      title: 'Secret standup',
      start_at: '2026-11-02T09:00:00Z',
      end_at: '2026-11-02T10:00:00Z',
      timezone: 'UTC',
      recurrence: { freq: 'WEEKLY', count: 5, exdates: ['2026-11-16T09:00:00.000Z'] },
    })
  ).body.data
  // The 9th moved to 14:00.
  const moved = await parent.call('PATCH', `/events/${series.id}?scope=this&occurrence_start=2026-11-09T09:00:00.000Z`, {
    start_at: '2026-11-09T14:00:00Z',
    end_at: '2026-11-09T15:00:00Z',
  })
  t.equal(moved.status, 200)
  // Overlapping plain events merge.
  await parent.call('POST', '/events', { title: 'Dentist', start_at: '2026-11-03T08:00:00Z', end_at: '2026-11-03T09:30:00Z' })
  await parent.call('POST', '/events', { title: 'Call', start_at: '2026-11-03T09:00:00Z', end_at: '2026-11-03T10:00:00Z' })
  await parent.call('POST', '/events', { title: 'Off', start_at: '2026-11-04T09:00:00Z', status: 'cancelled' })
  // Invited by another member: busy until declined.
  const party = (
    await other.call('POST', '/events', {
      title: 'Party',
      start_at: '2026-11-05T20:00:00Z',
      end_at: '2026-11-05T23:00:00Z',
      attendees: [{ email: parent.email }],
    })
  ).body.data
  const late = (
    await other.call('POST', '/events', {
      title: 'Late show',
      start_at: '2026-11-06T20:00:00Z',
      end_at: '2026-11-06T22:00:00Z',
      attendees: [{ email: parent.email }],
    })
  ).body.data
  await parent.call('POST', `/events/${late.id}/rsvp`, { status: 'declined' })
  // Marked TRANSP:TRANSPARENT in the file it came from.
  const ics = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'BEGIN:VEVENT',
    'UID:holiday@test',
    'DTSTAMP:20261101T000000Z',
    'DTSTART:20261107T100000Z',
    'DTEND:20261107T120000Z',
    'SUMMARY:Reminder only',
    'TRANSP:TRANSPARENT',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n')
  t.equal((await importInto({ app, token: parent.token }, 'events', 'free.ics', ics)).status, 200)

  const answer = await kid.call('GET', `/freebusy?users=${parent.id}&from=2026-11-01&to=2026-11-30`)
  t.equal(answer.status, 200)
  t.same(answer.body.data, [
    {
      user_id: parent.id,
      busy: [
        { start: iso('2026-11-02T09:00:00Z'), end: iso('2026-11-02T10:00:00Z') },
        { start: iso('2026-11-03T08:00:00Z'), end: iso('2026-11-03T10:00:00Z') },
        { start: iso('2026-11-05T20:00:00Z'), end: iso('2026-11-05T23:00:00Z') },
        { start: iso('2026-11-09T14:00:00Z'), end: iso('2026-11-09T15:00:00Z') },
        { start: iso('2026-11-23T09:00:00Z'), end: iso('2026-11-23T10:00:00Z') },
        { start: iso('2026-11-30T09:00:00Z'), end: iso('2026-11-30T10:00:00Z') },
      ],
    },
  ])
  t.notMatch(JSON.stringify(answer.body), /Secret|Dentist|Party|standup/, 'never a title')

  // The invitation, declined, still makes nobody else busy; the other member is busy with their own events.
  const both = await kid.call('GET', `/freebusy?users=${other.id},${kid.id}&from=2026-11-05T00:00:00Z&to=2026-11-07T00:00:00Z`)
  t.same(
    both.body.data.map((d: { user_id: string; busy: unknown[] }) => [d.user_id, d.busy.length]),
    [
      [other.id, 2],
      [kid.id, 0],
    ],
  )
  t.equal(party.attendees[0].status, 'pending')

  // Clipped to the window.
  const clipped = await kid.call('GET', `/freebusy?users=${parent.id}&from=2026-11-02T09:30:00Z&to=2026-11-02T12:00:00Z`)
  t.same(clipped.body.data[0].busy, [{ start: iso('2026-11-02T09:30:00Z'), end: iso('2026-11-02T10:00:00Z') }])

  // The codes.
  const stranger = await kid.call('GET', `/freebusy?users=00000000-0000-4000-8000-000000000000&from=2026-11-01&to=2026-11-30`)
  t.equal(stranger.status, 404, 'a non-member: 404')
  t.equal(stranger.body.error.code, 'NOT_FOUND')
  const backwards = await kid.call('GET', `/freebusy?users=${parent.id}&from=2026-11-30&to=2026-11-01`)
  t.equal(backwards.status, 400, 'to before from: 400')
  t.match(backwards.body.error, { code: 'INVALID_QUERY', details: { field: 'to' } })
  const long = await kid.call('GET', `/freebusy?users=${parent.id}&from=2026-01-01&to=2027-06-01`)
  t.equal(long.status, 400, 'more than 366 days: 400')
  t.match(long.body.error.details, { field: 'to', constraint: 'max_window' })
  t.equal((await kid.call('GET', `/freebusy?users=${parent.id}&from=soon&to=2026-11-01`)).status, 400, 'a bad datetime: 400')
  t.equal((await kid.call('GET', `/freebusy?from=2026-11-01&to=2026-11-02`)).status, 400, 'users required')
  t.equal((await kid.call('GET', `/freebusy?users=${parent.id},&from=2026-11-01&to=2026-11-02`)).status, 400, 'an empty id')
})
