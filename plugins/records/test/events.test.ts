import t from 'tap'
import { bench } from './records-app.js'

// `date` uses the server's local time zone; pin one with DST and a UTC offset.
// The household's zone is configured, never taken from the process TZ (CI runs these under three TZ values).
const berlin = { env: { HEARTH_TIMEZONE: 'Europe/Berlin' } }

t.test('POST /events: defaults, end_at one hour after start unless all-day, times normalised to UTC', async (t) => {
  const { call, clock } = await bench(t, berlin)
  const res = await call('POST', '/events', { title: 'Dentist', start_at: '2026-11-20T09:30:00+01:00' })
  t.equal(res.status, 201)
  const { id, owner_id, ...rest } = res.body.data
  t.match(owner_id, /^[0-9a-f-]{36}$/, 'whose it is')
  t.same(rest, {
    title: 'Dentist',
    description: null,
    location: null,
    start_at: '2026-11-20T08:30:00.000Z',
    end_at: '2026-11-20T09:30:00.000Z',
    all_day: false,
    recurrence: null,
    status: 'confirmed',
    calendar_name: 'default',
    timezone: 'Europe/Berlin',
    recurrence_id: null,
    occurrence_start: null,
    reminders: [],
    attendees: [],
    custom_fields: null,
    source: 'local',
    created_at: new Date(clock.ms).toISOString(),
    updated_at: new Date(clock.ms).toISOString(),
    deleted_at: null,
    etag: '"1"',
  })
  const allDay = await call('POST', '/events', { title: 'Holiday', start_at: '2026-12-24T00:00:00+01:00', all_day: true })
  t.equal(allDay.body.data.end_at, null, 'all-day without end_at keeps it null')
  t.equal(allDay.body.data.start_at, '2026-12-24T00:00:00.000Z', 'an all-day event is the date as written, never shifted')
  const bad = await call('POST', '/events', { title: 'Nowhere', start_at: '2026-11-20T10:00:00Z', timezone: 'Mars/Olympus' })
  t.equal(bad.status, 400)
  t.same(bad.body.error.details, { field: 'timezone', constraint: 'zone' })
  const full = await call('POST', '/events', {
    title: 'Review',
    start_at: '2026-11-20T10:00:00Z',
    end_at: '2026-11-20T10:00:00Z',
    attendees: [{ email: 'a@x.example' }, { email: 'b@x.example', name: 'B', status: 'accepted' }],
    reminders: [{ type: 'email', minutes_before: 30 }],
  })
  t.equal(full.status, 201, 'end_at equal to start_at is allowed')
  t.same(full.body.data.attendees, [
    { email: 'a@x.example', name: null, status: 'pending' },
    { email: 'b@x.example', name: 'B', status: 'accepted' },
  ])
})

t.test('PATCH moves an event keeping its length; status moves freely; end before start refused', async (t) => {
  const { call } = await bench(t, berlin)
  const ev = (await call('POST', '/events', { title: 'Call', start_at: '2026-11-20T10:00:00Z', end_at: '2026-11-20T10:45:00Z' })).body.data
  const moved = await call('PATCH', `/events/${ev.id}`, { start_at: '2026-11-21T08:00:00Z' })
  t.equal(moved.body.data.end_at, '2026-11-21T08:45:00.000Z')
  for (const status of ['tentative', 'cancelled', 'confirmed', 'cancelled']) {
    t.equal((await call('PATCH', `/events/${ev.id}`, { status })).body.data.status, status)
  }
  const bad = await call('PATCH', `/events/${ev.id}`, { end_at: '2026-11-21T07:00:00Z' })
  t.equal(bad.status, 400)
  t.same(bad.body.error.details, { field: 'end_at', constraint: 'after_start_at' })
  const toTimed = await call('POST', '/events', { title: 'x', start_at: '2026-11-20T00:00:00Z', all_day: true })
  const timed = await call('PATCH', `/events/${toTimed.body.data.id}`, { all_day: false })
  t.equal(timed.body.data.end_at, '2026-11-20T01:00:00.000Z', 'leaving all-day gives the default hour')
})

t.test('event validation errors, recurrence keys included', async (t) => {
  const { call } = await bench(t, berlin)
  const base = { title: 'x', start_at: '2026-11-20T10:00:00Z' }
  const rec = (r: Record<string, unknown>) => ({ ...base, recurrence: { freq: 'WEEKLY', ...r } })
  const cases: Array<[unknown, { field: string; constraint: string }]> = [
    [{ start_at: base.start_at }, { field: 'title', constraint: 'required' }],
    [{ title: 'x' }, { field: 'start_at', constraint: 'required' }],
    [
      { ...base, start_at: 'tomorrow' },
      { field: 'start_at', constraint: 'format' },
    ],
    [
      { ...base, end_at: '2026-11-20T09:59:59Z' },
      { field: 'end_at', constraint: 'after_start_at' },
    ],
    [
      { ...base, all_day: 'no' },
      { field: 'all_day', constraint: 'type' },
    ],
    [
      { ...base, status: 'done' },
      { field: 'status', constraint: 'enum' },
    ],
    [
      { ...base, reminders: [{ type: 'sms', minutes_before: 5 }] },
      { field: 'reminders.0.type', constraint: 'enum' },
    ],
    [
      { ...base, reminders: [{ type: 'email', minutes_before: -5 }] },
      { field: 'reminders.0.minutes_before', constraint: 'minimum' },
    ],
    [
      { ...base, reminders: [{ type: 'email' }] },
      { field: 'reminders.0.minutes_before', constraint: 'required' },
    ],
    [
      { ...base, attendees: [{ email: 'a@b', status: 'maybe' }] },
      { field: 'attendees.0.status', constraint: 'enum' },
    ],
    [
      { ...base, recurrence: { interval: 2 } },
      { field: 'recurrence.freq', constraint: 'required' },
    ],
    [rec({ freq: 'HOURLY' }), { field: 'recurrence.freq', constraint: 'enum' }],
    [rec({ interval: 0 }), { field: 'recurrence.interval', constraint: 'minimum' }],
    [rec({ interval: 1.5 }), { field: 'recurrence.interval', constraint: 'type' }],
    [rec({ byday: ['XX'] }), { field: 'recurrence.byday.0', constraint: 'pattern' }],
    [rec({ byday: 'MO' }), { field: 'recurrence.byday', constraint: 'type' }],
    [rec({ freq: 'MONTHLY', bymonthday: [0] }), { field: 'recurrence.bymonthday.0', constraint: 'not' }],
    [rec({ freq: 'MONTHLY', bymonthday: [32] }), { field: 'recurrence.bymonthday.0', constraint: 'maximum' }],
    [rec({ freq: 'YEARLY', bymonth: [13] }), { field: 'recurrence.bymonth.0', constraint: 'maximum' }],
    [rec({ count: 0 }), { field: 'recurrence.count', constraint: 'minimum' }],
    [rec({ until: 'next year' }), { field: 'recurrence.until', constraint: 'pattern' }],
    [rec({ wkst: 'MO' }), { field: 'recurrence.wkst', constraint: 'unknown' }],
    [rec({ count: 3, until: '2027-01-01' }), { field: 'recurrence.until', constraint: 'exclusive' }],
    [rec({ byday: ['1MO'] }), { field: 'recurrence.byday', constraint: 'ordinal' }],
    [rec({ freq: 'WEEKLY', bymonthday: [3] }), { field: 'recurrence.bymonthday', constraint: 'weekly' }],
    // Never occurs: expanding it walked 100,000 days to find nothing.
    [rec({ freq: 'DAILY', bymonth: [2], bymonthday: [30] }), { field: 'recurrence.bymonthday', constraint: 'never' }],
    [rec({ freq: 'YEARLY', bymonth: [4, 6, 9, 11], bymonthday: [31, -31] }), { field: 'recurrence.bymonthday', constraint: 'never' }],
  ]
  for (const [payload, details] of cases) {
    const res = await call('POST', '/events', payload)
    t.equal(res.status, 400, JSON.stringify(payload))
    t.equal(res.body.error.code, 'VALIDATION_ERROR')
    t.same(res.body.error.details, details, JSON.stringify(payload))
  }
  const ok = await call('POST', '/events', rec({ freq: 'MONTHLY', byday: ['-1FR'], until: '2027-06-30' }))
  t.equal(ok.status, 201, 'ordinal byday is fine on MONTHLY')
  const leap = await call('POST', '/events', rec({ freq: 'YEARLY', bymonth: [2], bymonthday: [29], count: 2 }))
  t.equal(leap.status, 201, 'February 29th occurs, in leap years')
  for (const [qs, field, constraint] of [
    ['date=yesterday', 'date', 'pattern'],
    ['date=2026-02-30', 'date', 'format'],
    ['from=not-a-date-at-all', 'from', 'format'],
    ['to=2026-13-45T99:00:00Z', 'to', 'format'],
    ['status=done', 'status', 'enum'],
    ['sort=display_name', 'sort', 'enum'],
    ['tag=x', 'tag', 'unknown'],
  ]) {
    const res = await call('GET', `/events?${qs}`)
    t.equal(res.body.error?.code, 'INVALID_QUERY', qs)
    t.same(res.body.error?.details, { field, constraint }, qs)
  }
})

t.test('date, from/to (inclusive), calendar_name, status, source: alone and combined, in local time', async (t) => {
  // The clock says Wednesday 2026-11-18 11:00 in Berlin.
  const { call, clock } = await bench(t, berlin)
  const make = async (title: string, start_at: string, extra: Record<string, unknown> = {}, source?: string) => {
    clock.advance(1000)
    return (await call('POST', '/events', { title, start_at, ...extra }, source ? { 'x-svc-source': source } : {})).body.data
  }
  await make('prev-sunday', '2026-11-15T12:00:00Z')
  await make('tuesday-late', '2026-11-17T22:30:00Z') // Berlin: Tue 23:30
  await make('today-early', '2026-11-17T23:30:00Z', { calendar_name: 'work' }) // Berlin: Wed 00:30 (UTC still Tuesday)
  await make('today', '2026-11-18T15:00:00Z', { status: 'tentative' }, 'caldav')
  await make('tomorrow', '2026-11-19T09:00:00Z', { calendar_name: 'work' })
  await make('sunday-night', '2026-11-22T20:00:00Z') // Berlin: Sun 21:00
  await make('next-monday', '2026-11-23T08:00:00Z', { calendar_name: 'work', status: 'cancelled' })
  await make('december', '2026-12-01T10:00:00Z')
  clock.ms = Date.parse('2026-11-18T10:00:00Z')
  const titles = async (qs: string) => {
    const res = await call('GET', `/events?${qs}`)
    t.equal(res.status, 200, qs)
    if (!qs.includes('limit')) t.equal(res.body.meta.total, res.body.data.length, qs)
    return res.body.data.map((e: { title: string }) => e.title)
  }
  const all = ['prev-sunday', 'tuesday-late', 'today-early', 'today', 'tomorrow', 'sunday-night', 'next-monday', 'december']
  t.same(await titles(''), all, 'default sort: start_at ascending')
  t.same(await titles('order=desc'), [...all].reverse())
  t.same(await titles('date=today'), ['today-early', 'today'])
  t.same(await titles('date=tomorrow'), ['tomorrow'])
  t.same(await titles('date=this_week'), ['tuesday-late', 'today-early', 'today', 'tomorrow', 'sunday-night'], 'Monday to Sunday')
  t.same(await titles('date=this_month'), all.slice(0, 7))
  t.same(await titles('date=2026-11-17'), ['tuesday-late'])
  t.same(await titles('from=2026-11-18T15:00:00Z&to=2026-11-19T09:00:00Z'), ['today', 'tomorrow'], 'both bounds inclusive')
  t.same(await titles('from=2026-11-22T20:00:00Z'), ['sunday-night', 'next-monday', 'december'])
  t.same(await titles('to=2026-11-15T12:00:00Z'), ['prev-sunday'])
  t.same(await titles('to=2026-11-17'), ['prev-sunday', 'tuesday-late'], 'a bare day as `to` includes that whole day')
  t.same(await titles('date=today&from=2026-11-18T00:00:00Z'), ['today'], 'date and from intersect')
  t.same(await titles('calendar_name=work'), ['today-early', 'tomorrow', 'next-monday'])
  t.same(await titles('calendar_name=work&date=this_week'), ['today-early', 'tomorrow'])
  t.same(await titles('status=cancelled'), ['next-monday'])
  t.same(await titles('source=caldav'), ['today'])
  t.same(await titles('source=local&status=cancelled'), ['next-monday'])
  t.same(await titles('status=tentative&source=caldav&date=today'), ['today'])
  t.same(await titles('source=caldav&calendar_name=work'), [])
  t.same(await titles('sort=title&date=this_week'), ['sunday-night', 'today', 'today-early', 'tomorrow', 'tuesday-late'])
  t.same(await titles('sort=created_at&order=desc&limit=2'), ['december', 'next-monday'])
  t.same(await titles('sort=updated_at&limit=2'), ['prev-sunday', 'tuesday-late'])
  const page = await call('GET', '/events?date=this_month&limit=3&offset=3')
  t.same(page.body.meta, { total: 7, limit: 3, offset: 3 })
  t.same(
    page.body.data.map((e: { title: string }) => e.title),
    ['today', 'tomorrow', 'sunday-night'],
  )
})

t.test('events compact: exactly id, title, start_at, end_at, all_day, location, status', async (t) => {
  const { call } = await bench(t, berlin)
  const ev = (await call('POST', '/events', { title: 'Gym', start_at: '2026-11-20T18:00:00Z', location: 'Club', description: 'legs' })).body
    .data
  const day = (await call('POST', '/events', { title: 'Trip', start_at: '2026-11-21T00:00:00Z', all_day: true })).body.data
  const res = await call('GET', '/events?format=compact')
  t.same(res.body.data, [
    { id: ev.id, title: 'Gym', start_at: ev.start_at, end_at: ev.end_at, all_day: false, location: 'Club', status: 'confirmed' },
    { id: day.id, title: 'Trip', start_at: day.start_at, all_day: true, status: 'confirmed' },
  ])
})
