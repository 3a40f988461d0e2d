import t from 'tap'
import { addUser, auth } from '../../../test/helper.js'
import { bench, exportOf, importInto } from './records-app.js'

/**
 * Tasks as iCalendar VTODO: an export imported by another user gives back every field the format
 * carries (subtasks linked again, in any order in the file); a VTODO the engine refuses is
 * reported where it is in the file and nothing of it is stored; what Hearth has no field for is
 * kept and written back.
 */
const vcal = (...todos: string[]) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${todos.join('')}END:VCALENDAR\r\n`
const vtodo = (lines: string) => `BEGIN:VTODO\r\nDTSTAMP:20261101T000000Z\r\n${lines}END:VTODO\r\n`

const FIELDS = [
  'title',
  'description',
  'status',
  'due_at',
  'start_at',
  'all_day',
  'completed_at',
  'priority',
  'list_name',
  'tags',
  'recurrence',
  'reminders',
  'timezone',
  'custom_fields',
  'source',
] as const

t.test('export then import gives back every field, subtasks linked again', async (t) => {
  const b = await bench(t, { env: { HEARTH_TIMEZONE: 'Asia/Tokyo' } })
  const { call } = b
  const make = async (body: Record<string, unknown>) => (await call('POST', '/tasks', body)).body.data
  const parent = await make({
    title: 'Trip to Lyon',
    description: 'Line one\nLine two; with, marks',
    tags: ['travel', 'family'],
    list_name: 'trips',
  })
  await make({
    title: 'Book the train',
    parent_id: parent.id,
    start_at: '2026-12-01T08:00:00Z',
    due_at: '2026-12-03T17:30:00Z',
    timezone: 'Europe/Paris',
    priority: 1,
    status: 'in-process',
    reminders: [
      { type: 'notification', minutes_before: 60 },
      { type: 'email', minutes_before: 1440 },
    ],
    custom_fields: { seats: 2, coach: 'B' },
    list_name: 'trips',
  })
  await make({
    title: 'Bins',
    all_day: true,
    due_at: '2026-12-02T00:00:00Z',
    timezone: 'Europe/Paris',
    recurrence: { freq: 'WEEKLY', byday: ['WE'], count: 20, exdates: ['2026-12-23'] },
  })
  await make({ title: 'Pay the plumber', status: 'completed', completed_at: '2026-11-20T09:15:00Z', priority: 9 })

  const file = await exportOf(b, 'tasks')
  t.match(file, /^BEGIN:VCALENDAR\r\n/)
  t.match(file, 'BEGIN:VTIMEZONE\r\nTZID:Europe/Paris', 'the zone the timed task uses is in the file')
  t.match(file, 'DUE;TZID=Europe/Paris:20261203T183000')
  t.match(file, 'DUE;VALUE=DATE:20261202')
  t.match(file, 'RELATED-TO;RELTYPE=PARENT:')

  // Another user of the instance imports it, the subtask first in the file: still linked to its parent.
  const otherToken = (await addUser(b.app, b.token)).token
  const other = async (path: string) =>
    (await b.app.inject({ method: 'GET', url: `/api/v1${path}`, headers: auth(otherToken) })).json() as {
      data: Array<Record<string, unknown>>
    }
  const todos = file.match(/BEGIN:VTODO[\s\S]*?END:VTODO\r\n/g) ?? []
  const reordered = `${file.slice(0, file.indexOf('BEGIN:VTODO'))}${[...todos].reverse().join('')}END:VCALENDAR\r\n`
  const imported = await importInto({ app: b.app, token: otherToken }, 'tasks', 'tasks.ics', reordered)
  t.equal(imported.status, 200)
  t.equal(imported.data.imported, 4, JSON.stringify(imported.data.failed))

  const mine = (await call('GET', '/tasks?limit=10&include_deleted=true&sort=title')).body.data
  const theirs = (await other('/tasks?limit=10&sort=title')).data
  t.equal(theirs.length, 4)
  mine.forEach((m: Record<string, unknown>, i: number) => {
    const o = theirs[i] as Record<string, unknown>
    for (const f of FIELDS) t.same(o[f], m[f], `${m.title}: ${f}`)
    t.equal(o.created_at, String(m.created_at).replace(/\.\d{3}Z$/, '.000Z'), `${m.title}: created_at to the second`)
  })
  const train = theirs.find((x) => x.title === 'Book the train')
  const trip = theirs.find((x) => x.title === 'Trip to Lyon')
  t.equal(train?.parent_id, trip?.id, 'linked to the parent imported with it')
})

t.test('refused VTODOs are reported where they are; unknown properties and parents are kept', async (t) => {
  const b = await bench(t)
  const file = vcal(
    vtodo('UID:good-1\r\nSUMMARY:Good\r\nX-APPLE-SORT-ORDER:5\r\nPERCENT-COMPLETE:40\r\nRELATED-TO:somewhere-else\r\n'),
    vtodo('UID:bad-1\r\nSUMMARY:Backwards\r\nDTSTART:20261202T100000Z\r\nDUE:20261201T100000Z\r\n'),
    vtodo('UID:bad-2\r\nSUMMARY:Broken\r\nDUE:2026-12-01\r\n'),
    'BEGIN:VEVENT\r\nUID:e\r\nDTSTART:20261201T100000Z\r\nSUMMARY:An event\r\nEND:VEVENT\r\n',
  )
  const res = await importInto(b, 'tasks', 'tasks.ics', file)
  t.equal(res.status, 200)
  t.equal(res.data.imported, 1)
  t.match(res.data.failed, [
    { index: 1, line: 12, details: { field: 'due_at', constraint: 'after_start_at' } },
    { index: 2, line: 19 },
  ])
  const tasks = (await b.call('GET', '/tasks')).body
  t.equal(tasks.meta.total, 1, 'nothing of the refused ones stored')
  t.equal(tasks.data[0].parent_id, null)
  await b.call('PATCH', `/tasks/${tasks.data[0].id}`, { title: 'Still good' })
  const out = await exportOf(b, 'tasks')
  for (const line of [
    'UID:good-1',
    'SUMMARY:Still good',
    'X-APPLE-SORT-ORDER:5',
    'PERCENT-COMPLETE:40',
    'RELATED-TO;RELTYPE=PARENT:somewhere-else',
  ])
    t.match(out, `\r\n${line}\r\n`, line)
  t.notMatch(out, 'An event', 'events are not tasks')
  const none = await importInto(b, 'tasks', 'events.ics', vcal('BEGIN:VEVENT\r\nUID:e\r\nDTSTART:20261201T100000Z\r\nEND:VEVENT\r\n'))
  t.equal(none.status, 400, 'a file without any VTODO is the wrong file')
})
