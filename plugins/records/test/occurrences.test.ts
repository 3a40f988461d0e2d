import t, { type Test } from 'tap'
import { addUser } from '../../../test/helper.js'
import { bench, exportOf, importInto } from './records-app.js'

/**
 * One occurrence versus the series: PATCH/DELETE with
 * scope=this|following|all and occurrence_start, overrides in ranged lists, and
 * the iCalendar form (RECURRENCE-ID with the series' UID, EXDATE) both ways.
 */
type Item = {
  id: string
  title: string
  start_at: string
  end_at: string | null
  recurrence: { count?: number; until?: string; exdates?: string[] } | null
  recurrence_id: string | null
  occurrence_start: string | null
}

// Mondays 09:00 New York from 2 March 2026, five times: the 9th onwards is daylight time (13:00Z).
const MONDAYS = [
  '2026-03-02T14:00:00.000Z',
  '2026-03-09T13:00:00.000Z',
  '2026-03-16T13:00:00.000Z',
  '2026-03-23T13:00:00.000Z',
  '2026-03-30T13:00:00.000Z',
]
const WINDOW = '/events?from=2026-03-01&to=2026-04-30&limit=50'

async function withSeries(t: Test) {
  const b = await bench(t, { env: { HEARTH_TIMEZONE: 'Europe/Paris' } })
  const res = await b.call('POST', '/events', {
    title: 'Lesson',
    start_at: MONDAYS[0],
    end_at: '2026-03-02T15:00:00.000Z',
    timezone: 'America/New_York',
    recurrence: { freq: 'WEEKLY', byday: ['MO'], count: 5 },
  })
  t.equal(res.status, 201)
  const list = async () => (await b.call('GET', WINDOW)).body.data as Item[]
  return { ...b, series: res.body.data as Item, list }
}

const view = (items: Item[]) => items.map((i) => [i.title, i.start_at])

t.test('PATCH scope=this: an override replaces one occurrence, and is edited in place after', async (t) => {
  const { call, series, list } = await withSeries(t)
  const moved = await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[1]}`, {
    title: 'Lesson (moved)',
    start_at: '2026-03-10T13:00:00Z',
  })
  t.equal(moved.status, 200)
  t.not(moved.body.data.id, series.id, 'a record of its own')
  t.equal(moved.body.data.recurrence_id, series.id)
  t.equal(moved.body.data.occurrence_start, MONDAYS[1])
  t.equal(moved.body.data.end_at, '2026-03-10T14:00:00.000Z', 'the series length kept')
  t.same(view(await list()), [
    ['Lesson', MONDAYS[0]],
    ['Lesson (moved)', '2026-03-10T13:00:00.000Z'],
    ['Lesson', MONDAYS[2]],
    ['Lesson', MONDAYS[3]],
    ['Lesson', MONDAYS[4]],
  ])
  const again = await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[1]}`, { location: 'Studio B' })
  t.equal(again.body.data.id, moved.body.data.id, 'the same override, edited')
  t.equal(again.body.data.title, 'Lesson (moved)')
  t.equal((await list()).length, 5)
  const series2 = await call('GET', `/events/${series.id}`)
  t.equal(series2.body.data.title, 'Lesson', 'the series itself is untouched')
})

t.test('DELETE scope=this: the start joins the exdates; the override goes with it', async (t) => {
  const { call, series, list } = await withSeries(t)
  await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[2]}`, { title: 'Lesson (override)' })
  const res = await call('DELETE', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[2]}`)
  t.equal(res.status, 200)
  t.same(res.body.data.recurrence.exdates, [MONDAYS[2]])
  t.same(view(await list()), [
    ['Lesson', MONDAYS[0]],
    ['Lesson', MONDAYS[1]],
    ['Lesson', MONDAYS[3]],
    ['Lesson', MONDAYS[4]],
  ])
})

t.test('PATCH scope=following splits the series; DELETE scope=following ends it', async (t) => {
  const { call, series, list } = await withSeries(t)
  await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[4]}`, { title: 'Last lesson' })
  const split = await call('PATCH', `/events/${series.id}?scope=following&occurrence_start=${MONDAYS[3]}`, { title: 'Advanced' })
  t.equal(split.status, 200)
  t.not(split.body.data.id, series.id, 'a new series from that occurrence')
  t.equal(split.body.data.start_at, MONDAYS[3])
  t.equal(split.body.data.recurrence.count, 2, 'what COUNT had left')
  const old = (await call('GET', `/events/${series.id}`)).body.data as Item
  t.equal(old.recurrence?.count, undefined)
  t.equal(old.recurrence?.until, '2026-03-23T12:59:59.999Z', 'the old series ends just before')
  t.same(
    view(await list()),
    [
      ['Lesson', MONDAYS[0]],
      ['Lesson', MONDAYS[1]],
      ['Lesson', MONDAYS[2]],
      ['Advanced', MONDAYS[3]],
      ['Last lesson', MONDAYS[4]],
    ],
    'the override of a later occurrence follows the new series',
  )

  const ended = await call('DELETE', `/events/${series.id}?scope=following&occurrence_start=${MONDAYS[1]}`)
  t.equal(ended.status, 200)
  t.same(
    view(await list()).filter(([title]) => title === 'Lesson'),
    [['Lesson', MONDAYS[0]]],
  )
})

t.test('scope needs a real occurrence; scope=all is the whole series', async (t) => {
  const { call, series } = await withSeries(t)
  const missing = await call('PATCH', `/events/${series.id}?scope=this`, { title: 'x' })
  t.equal(missing.status, 400)
  t.same(missing.body.error.details, { field: 'occurrence_start', constraint: 'required' })
  const wrong = await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=2026-03-03T13:00:00Z`, { title: 'x' })
  t.equal(wrong.status, 422)
  t.same(wrong.body.error.details, { field: 'occurrence_start', constraint: 'occurrence' })
  const plain = await call('POST', '/events', { title: 'Once', start_at: '2026-03-05T10:00:00Z' })
  const notSeries = await call('PATCH', `/events/${plain.body.data.id}?scope=this&occurrence_start=2026-03-05T10:00:00Z`, { title: 'x' })
  t.equal(notSeries.status, 422)
  const all = await call('PATCH', `/events/${series.id}?scope=all`, { title: 'Renamed' })
  t.equal(all.body.data.id, series.id)
  t.equal(all.body.data.title, 'Renamed')
})

t.test('iCalendar: overrides export with the series UID and RECURRENCE-ID, and import back linked', async (t) => {
  const b = await withSeries(t)
  const { call, series, list } = b
  await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[1]}`, {
    title: 'Moved',
    start_at: '2026-03-10T13:00:00Z',
  })
  await call('DELETE', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[3]}`)
  const before = view(await list())
  const exported = { body: await exportOf(b, 'events') }
  t.match(exported.body, `RECURRENCE-ID;TZID=America/New_York:20260309T090000`)
  t.match(exported.body, `EXDATE;TZID=America/New_York:20260323T090000`)
  t.equal(exported.body.split(`UID:${series.id}@hearth`).length - 1, 2, 'the series and its override share one UID')

  const other = await bench(t, { env: { HEARTH_TIMEZONE: 'Asia/Tokyo' } })
  t.same((await importInto(other, 'events', 'export.ics', exported.body)).data.failed, [])
  const after = (await other.call('GET', WINDOW)).body.data as Item[]
  t.same(view(after), before, 'the same occurrences, the override in place of its occurrence')
  const override = after.find((i) => i.title === 'Moved') as Item
  const newSeries = after.find((i) => i.title === 'Lesson') as Item
  t.equal(override.recurrence_id, newSeries.recurrence_id ?? newSeries.id, 'linked to the imported series')
})

t.test('import: a cancelled occurrence becomes an exdate; an override without its series is reported', async (t) => {
  const b = await bench(t)
  const { call } = b
  const ics = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Google Inc//Google Calendar 70.9054//EN',
    'BEGIN:VEVENT',
    'DTSTART:20260601T070000Z',
    'DTEND:20260601T080000Z',
    'RRULE:FREQ=DAILY;COUNT=3',
    'UID:daily-1@google.com',
    'SUMMARY:Run',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART:20260602T070000Z',
    'DTEND:20260602T080000Z',
    'RECURRENCE-ID:20260602T070000Z',
    'UID:daily-1@google.com',
    'STATUS:CANCELLED',
    'SUMMARY:Run',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART:20260605T070000Z',
    'RECURRENCE-ID:20260605T070000Z',
    'UID:elsewhere@google.com',
    'SUMMARY:Orphan',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n')
  const { data } = await importInto(b, 'events', 'cal.ics', ics)
  t.equal(data.imported, 1)
  t.match(data.failed, [{ index: 2, error: /series is neither in this file nor imported before/ }])
  const items = (await call('GET', '/events?from=2026-06-01&to=2026-06-30')).body.data as Item[]
  t.same(
    items.map((i) => i.start_at),
    ['2026-06-01T07:00:00.000Z', '2026-06-03T07:00:00.000Z'],
  )
})

t.test('import: an override arriving in a later file joins the series an earlier import brought', async (t) => {
  const b = await bench(t)
  const vevent = (lines: string[]) =>
    ['BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', ...lines, 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n')
  const series = vevent([
    'DTSTART:20260601T070000Z',
    'DTEND:20260601T080000Z',
    'RRULE:FREQ=DAILY;COUNT=3',
    'UID:walk@example.org',
    'SUMMARY:Walk',
  ])
  const moved = vevent([
    'DTSTART:20260602T090000Z',
    'DTEND:20260602T100000Z',
    'RECURRENCE-ID:20260602T070000Z',
    'UID:walk@example.org',
    'SUMMARY:Walk (late)',
  ])
  t.equal((await importInto(b, 'events', 'series.ics', series)).data.imported, 1)
  const second = await importInto(b, 'events', 'moved.ics', moved)
  t.same(second.data.failed, [])
  const items = (await b.call('GET', '/events?from=2026-06-01&to=2026-06-30')).body.data as Item[]
  t.same(view(items), [
    ['Walk', '2026-06-01T07:00:00.000Z'],
    ['Walk (late)', '2026-06-02T09:00:00.000Z'],
    ['Walk', '2026-06-03T07:00:00.000Z'],
  ])
  const other = await addUser(b.app, b.token)
  const theirs = await importInto({ app: b.app, token: other.token }, 'events', 'moved.ics', moved)
  t.match(theirs.data.failed, [{ index: 0, error: /series is neither/ }], "another user's import never links to this user's series")
})

t.test('erasing an override for good keeps its occurrence excluded; erasing the series takes its overrides', async (t) => {
  const { call, series, list } = await withSeries(t)
  const override = await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[1]}`, { title: 'Special' })
  await call('DELETE', `/events/${override.body.data.id}`)
  t.equal((await list()).length, 4, 'in the trash: the override is gone from the calendar and its occurrence stays away')
  await call('DELETE', `/events/${override.body.data.id}?permanent=true`)
  t.same(
    view(await list()),
    [MONDAYS[0], MONDAYS[2], MONDAYS[3], MONDAYS[4]].map((s) => ['Lesson', s]),
    'erased: the occurrence stays away',
  )
  t.same((await call('GET', `/events/${series.id}`)).body.data.recurrence.exdates, [MONDAYS[1]])
  const again = await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[2]}`, { title: 'Other' })
  await call('DELETE', `/events/${series.id}?permanent=true`)
  t.equal((await call('GET', `/events/${again.body.data.id}`)).status, 404, 'the override went with its series')
})

t.test('a series in the trash takes its overrides out of view; restored, they come back', async (t) => {
  const { call, series, list } = await withSeries(t)
  await call('PATCH', `/events/${series.id}?scope=this&occurrence_start=${MONDAYS[1]}`, { title: 'Special' })
  await call('DELETE', `/events/${series.id}`)
  t.same(await list(), [], 'nothing of the series in a window')
  t.same((await call('GET', '/events')).body.data, [], 'nor in the plain list')
  await call('POST', `/events/${series.id}/restore`)
  t.equal((await list()).length, 5)
  t.ok((await list()).some((i) => i.title === 'Special'))
})
