import t from 'tap'
import { bench } from './records-app.js'

// The household's zone is configured, never taken from the process TZ (CI runs these under three TZ values).
const berlin = { env: { HEARTH_TIMEZONE: 'Europe/Berlin' } }

type Item = {
  id: string
  title: string
  start_at: string
  end_at: string | null
  recurrence_id?: string | null
  occurrence_start?: string | null
}

t.test('ranged lists return each occurrence of a series with its own times and markers, merged with plain events', async (t) => {
  const { call } = await bench(t, berlin) // clock: Wed 2026-11-18
  // Weekly Monday and Wednesday 09:00 Berlin, begun in summer time (07:00Z), 90 minutes long.
  const series = (
    await call('POST', '/events', {
      title: 'Standup',
      start_at: '2026-10-05T07:00:00Z',
      end_at: '2026-10-05T08:30:00Z',
      recurrence: { freq: 'WEEKLY', byday: ['MO', 'WE'] },
    })
  ).body.data
  const plain = (await call('POST', '/events', { title: 'Lunch', start_at: '2026-11-18T11:00:00Z' })).body.data

  const week = await call('GET', '/events?date=this_week')
  t.equal(week.status, 200)
  const items = week.body.data as Item[]
  t.same(
    items.map((e) => [e.title, e.start_at, e.end_at]),
    [
      ['Standup', '2026-11-16T08:00:00.000Z', '2026-11-16T09:30:00.000Z'],
      ['Standup', '2026-11-18T08:00:00.000Z', '2026-11-18T09:30:00.000Z'],
      ['Lunch', '2026-11-18T11:00:00.000Z', '2026-11-18T12:00:00.000Z'],
    ],
    'local wall-clock time kept across the DST change; the series length kept',
  )
  t.same(items[0], {
    ...series,
    start_at: items[0].start_at,
    end_at: items[0].end_at,
    recurrence_id: series.id,
    occurrence_start: items[0].start_at,
  })
  t.equal(items[2].recurrence_id, null, 'plain events carry no marker')
  t.equal(week.body.meta.total, 3)
  t.equal(items[2].id, plain.id)

  const unranged = await call('GET', '/events')
  t.same(
    unranged.body.data.map((e: Item) => [e.title, e.start_at, e.recurrence_id != null]),
    [
      ['Standup', series.start_at, false],
      ['Lunch', plain.start_at, false],
    ],
    'without a window the series is listed once, as stored',
  )

  const month = await call('GET', '/events?date=this_month&limit=3&offset=3')
  t.equal(month.body.meta.total, 9 + 1, 'nine November Mondays/Wednesdays plus lunch')
  t.same(
    month.body.data.map((e: Item) => e.start_at),
    ['2026-11-11T08:00:00.000Z', '2026-11-16T08:00:00.000Z', '2026-11-18T08:00:00.000Z'],
  )
  const desc = await call('GET', '/events?date=this_month&order=desc&limit=2')
  t.same(
    desc.body.data.map((e: Item) => e.start_at),
    ['2026-11-30T08:00:00.000Z', '2026-11-25T08:00:00.000Z'],
  )

  await call('DELETE', `/events/${series.id}`)
  const afterDelete = await call('GET', '/events?date=this_week')
  t.same(
    afterDelete.body.data.map((e: Item) => e.title),
    ['Lunch'],
    'a deleted series expands to nothing',
  )
  const searched = await call('GET', '/events?date=this_week&search=standup&include_deleted=true')
  t.equal(searched.body.meta.total, 2, 'search and include_deleted apply to series too')
})

t.test('count, until, interval, monthly and yearly rules through the API', async (t) => {
  const { call } = await bench(t, berlin)
  const make = async (title: string, start_at: string, recurrence: Record<string, unknown>) =>
    call('POST', '/events', { title, start_at, recurrence })
  await make('daily-3', '2026-11-16T17:00:00Z', { freq: 'DAILY', count: 3 })
  await make('weekly-until', '2026-11-02T06:00:00Z', { freq: 'WEEKLY', until: '2026-11-18' })
  await make('fortnightly', '2026-11-02T10:00:00Z', { freq: 'WEEKLY', interval: 2 })
  await make('month-end', '2026-01-31T12:00:00Z', { freq: 'MONTHLY', bymonthday: [-1] })
  await make('last-friday', '2026-01-30T12:00:00Z', { freq: 'MONTHLY', byday: ['-1FR'] })
  await make('birthday', '1990-11-20T09:00:00Z', { freq: 'YEARLY' })
  await make('weekdays', '2026-11-01T07:00:00Z', { freq: 'DAILY', byday: ['MO', 'TU', 'WE', 'TH', 'FR'], until: '2026-11-04' })
  const got = async (qs: string) => {
    const res = await call('GET', `/events?${qs}&limit=200`)
    const by: Record<string, string[]> = {}
    for (const e of res.body.data as Item[]) (by[e.title] ??= []).push(e.start_at.slice(0, 10))
    return by
  }
  const month = await got('date=this_month')
  t.same(month['daily-3'], ['2026-11-16', '2026-11-17', '2026-11-18'], 'count stops the series')
  t.same(month['weekly-until'], ['2026-11-02', '2026-11-09', '2026-11-16'], 'until is inclusive of its day')
  t.same(month.fortnightly, ['2026-11-02', '2026-11-16', '2026-11-30'])
  t.same(month['month-end'], ['2026-11-30'])
  t.same(month['last-friday'], ['2026-11-27'])
  t.same(month.birthday, ['2026-11-20'])
  t.same(month.weekdays, ['2026-11-02', '2026-11-03', '2026-11-04'], 'byday filters a daily rule')
  const feb = await got('from=2027-02-01&to=2027-02-28')
  t.same(feb['month-end'], ['2027-02-28'], 'negative bymonthday counts from the month end')
  t.same(Object.keys(feb).sort(), ['fortnightly', 'last-friday', 'month-end'])
})

t.test('old series, years below 100 and impossible dates are handled, never a 500', async (t) => {
  const { call } = await bench(t, berlin)
  const ancient = (await call('POST', '/events', { title: 'ancient', start_at: '0001-01-01T12:00:00Z', recurrence: { freq: 'DAILY' } }))
    .body.data
  t.equal(ancient.start_at, '0001-01-01T12:00:00.000Z')
  const res = await call('GET', '/events?from=2026-11-18&to=2026-11-19')
  t.same(
    res.body.data.map((e: Item) => e.start_at.slice(0, 10)),
    ['2026-11-18', '2026-11-19'],
    'a daily series begun in year 1 still reaches today',
  )
  const year1 = await call('GET', '/events?from=0001-01-01&to=0001-01-03')
  t.same(
    year1.body.data.map((e: Item) => e.start_at.slice(0, 10)),
    ['0001-01-01', '0001-01-02', '0001-01-03'],
    'years below 100 are not 19xx',
  )
  for (const qs of ['from=2026-02-30T10:00:00Z', 'to=2026-04-31', 'offset=99999999999999999999']) {
    const bad = await call('GET', `/events?${qs}`)
    t.equal(bad.status, 400, qs)
    t.equal(bad.body.error.code, 'INVALID_QUERY', qs)
  }
})

t.test('a list over a long range pages without materialising every occurrence, and refuses past 10,000', async (t) => {
  const { call } = await bench(t, berlin)
  for (let i = 0; i < 25; i++) {
    const res = await call('POST', '/events', { title: `daily ${i}`, start_at: '2026-01-01T08:00:00Z', recurrence: { freq: 'DAILY' } })
    t.equal(res.status, 201)
  }
  const year = await call('GET', '/events?from=2026-01-01&to=2026-12-31&limit=5&offset=100')
  t.equal(year.status, 200)
  t.equal(year.body.meta.total, 25 * 365, 'the total counts every occurrence in the range')
  t.same(
    year.body.data.map((e: { start_at: string }) => e.start_at),
    Array(5).fill('2026-01-05T08:00:00.000Z'),
    'the page is cut from the merged, ordered occurrences',
  )
  const tooLong = await call('GET', '/events?from=2026-01-01&to=2027-06-30&limit=5')
  t.equal(tooLong.status, 422, '25 daily series over 18 months: 13,700 occurrences')
  t.equal(tooLong.body.error.code, 'UNPROCESSABLE')
  t.match(tooLong.body.error.message, /^the range \S+ to \S+ holds more than 10000 occurrences/)
})
