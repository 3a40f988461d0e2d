import t from 'tap'
import { davBench, PROPFIND, SYNC, VTODO as todo } from './dav-app.js'

/**
 * Task lists over CalDAV: one collection per list_name in the calendar home, VTODO only; objects
 * are the tasks of the JSON API (subtasks by RELATED-TO), what Hearth has no field for survives a
 * change made on the JSON side, and a wrong component is refused with nothing stored.
 */

const ICS = { 'content-type': 'text/calendar; charset=utf-8' }
const QUERY = (component: string, range = '') =>
  `<?xml version="1.0"?><c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="${component}">${range}</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>`

t.test('the calendar home lists task lists beside the calendars, VTODO only', async (t) => {
  const b = await davBench(t)
  await b.json('POST', '/api/v1/tasks', { title: 'Groceries', list_name: 'shopping' })
  const home = await b.dav(
    'PROPFIND',
    '/dav/calendars/',
    PROPFIND('d:resourcetype', 'c:supported-calendar-component-set', 'd:displayname'),
    {
      depth: '1',
    },
  )
  t.equal(home.status, 207)
  const hrefs = [...home.body.matchAll(/<d:href>([^<]+)<\/d:href>/g)].map((m) => m[1])
  t.same(hrefs, [
    '/dav/calendars/',
    '/dav/calendars/birthdays/',
    '/dav/calendars/default/',
    '/dav/calendars/tasks-default/',
    '/dav/calendars/tasks-shopping/',
  ])
  const list = await b.dav('PROPFIND', '/dav/calendars/tasks-shopping/', PROPFIND('d:resourcetype', 'c:supported-calendar-component-set'), {
    depth: '0',
  })
  t.match(list.body, '<c:calendar/>', 'a calendar collection')
  t.match(list.body, '<c:comp name="VTODO"/>', 'whose component set is VTODO')
  t.notMatch(list.body, 'VEVENT')
  const calendar = await b.dav('PROPFIND', '/dav/calendars/default/', PROPFIND('c:supported-calendar-component-set'), { depth: '0' })
  t.match(calendar.body, '<c:comp name="VEVENT"/>', 'calendars still hold events')
})

t.test('PUT, GET and a JSON-side change: subtasks by RELATED-TO, unknown properties kept', async (t) => {
  const b = await davBench(t)
  const parent = await b.dav('PUT', '/dav/calendars/tasks-default/move.ics', todo('move-1', 'SUMMARY:Move house\r\n'), ICS)
  t.equal(parent.status, 201)
  const child = todo(
    'pack-1',
    'SUMMARY:Pack books\r\nDUE;VALUE=DATE:20261205\r\nPRIORITY:1\r\nCATEGORIES:home,boxes\r\nRELATED-TO;RELTYPE=PARENT:move-1\r\n' +
      'X-APPLE-SORT-ORDER:42\r\nPERCENT-COMPLETE:30\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Pack\r\nTRIGGER;RELATED=END:-PT1H\r\nX-WR-ALARMUID:alarm-7\r\nEND:VALARM\r\n',
  )
  const put = await b.dav('PUT', '/dav/calendars/tasks-default/pack.ics', child, ICS)
  t.equal(put.status, 201)
  const tasks = (await b.json('GET', '/api/v1/tasks?limit=10')).body.data
  const move = tasks.find((x: { title: string }) => x.title === 'Move house')
  const pack = tasks.find((x: { title: string }) => x.title === 'Pack books')
  t.match(pack, {
    parent_id: move.id,
    due_at: '2026-12-05T00:00:00.000Z',
    all_day: true,
    priority: 1,
    tags: ['home', 'boxes'],
    list_name: 'default',
    source: 'dav',
    reminders: [{ type: 'notification', minutes_before: 60 }],
  })
  t.equal((await b.dav('GET', '/dav/calendars/tasks-default/pack.ics')).body, child, 'unchanged: the object as written')

  await b.json('PATCH', `/api/v1/tasks/${pack.id}`, { title: 'Pack all the books', status: 'in-process' })
  const after = (await b.dav('GET', '/dav/calendars/tasks-default/pack.ics')).body
  for (const line of [
    'UID:pack-1',
    'SUMMARY:Pack all the books',
    'STATUS:IN-PROCESS',
    'DUE;VALUE=DATE:20261205',
    'PRIORITY:1',
    'CATEGORIES:home,boxes',
    'RELATED-TO;RELTYPE=PARENT:move-1',
    'X-APPLE-SORT-ORDER:42',
    'PERCENT-COMPLETE:30',
    'TRIGGER;RELATED=END:-PT1H',
    'X-WR-ALARMUID:alarm-7',
  ]) {
    t.match(after, `\r\n${line}\r\n`, `after a JSON-side change: ${line}`)
  }

  const done = await b.json('POST', `/api/v1/tasks/${pack.id}/complete`)
  t.equal(done.status, 200)
  const completed = (await b.dav('GET', '/dav/calendars/tasks-default/pack.ics')).body
  t.match(completed, '\r\nSTATUS:COMPLETED\r\n')
  t.match(completed, `\r\nCOMPLETED:${done.body.data.completed_at.replace(/[-:]/g, '').replace(/\.\d{3}/, '')}\r\n`)
})

t.test('a subtask written before its parent keeps its RELATED-TO line', async (t) => {
  const b = await davBench(t)
  const orphan = todo('child-2', 'SUMMARY:Orphan\r\nRELATED-TO:parent-2\r\n')
  t.equal((await b.dav('PUT', '/dav/calendars/tasks-default/child.ics', orphan, ICS)).status, 201)
  const task = (await b.json('GET', '/api/v1/tasks')).body.data[0]
  t.equal(task.parent_id, null, 'no such parent yet')
  await b.json('PATCH', `/api/v1/tasks/${task.id}`, { priority: 5 })
  t.match((await b.dav('GET', '/dav/calendars/tasks-default/child.ics')).body, 'RELATED-TO;RELTYPE=PARENT:parent-2', 'the link is kept')
})

t.test('wrong components are refused, and nothing is stored', async (t) => {
  const b = await davBench(t)
  const event =
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:e1\r\nDTSTART:20261201T100000Z\r\nSUMMARY:Lunch\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n'
  const inList = await b.dav('PUT', '/dav/calendars/tasks-default/e1.ics', event, ICS)
  t.equal(inList.status, 422, 'an event in a task list')
  const inCalendar = await b.dav('PUT', '/dav/calendars/default/t1.ics', todo('t1', 'SUMMARY:Task\r\n'), ICS)
  t.equal(inCalendar.status, 422, 'a task in a calendar')
  const late = await b.dav(
    'PUT',
    '/dav/calendars/tasks-default/late.ics',
    todo('late', 'SUMMARY:Late\r\nDTSTART:20261202T100000Z\r\nDUE:20261201T100000Z\r\n'),
    ICS,
  )
  t.equal(late.status, 400, 'due before start')
  const cycle = await b.dav('PUT', '/dav/calendars/tasks-default/self.ics', todo('self', 'SUMMARY:Self\r\n'), ICS)
  t.equal(cycle.status, 201)
  const selfParent = await b.dav('PUT', '/dav/calendars/tasks-default/self.ics', todo('self', 'SUMMARY:Self\r\nRELATED-TO:self\r\n'), ICS)
  t.equal(selfParent.status, 400, 'its own parent')
  const tasks = (await b.json('GET', '/api/v1/tasks')).body
  t.equal(tasks.meta.total, 1, 'only the good task')
  t.equal(tasks.data[0].parent_id, null)
  t.equal((await b.json('GET', '/api/v1/events')).body.meta.total, 0)
})

t.test('MKCALENDAR makes a task list under tasks-<name>; a VTODO-only calendar elsewhere is refused', async (t) => {
  const b = await davBench(t)
  const body = (comp: string) =>
    `<?xml version="1.0"?><c:mkcalendar xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><d:displayname>Errands</d:displayname><c:supported-calendar-component-set><c:comp name="${comp}"/></c:supported-calendar-component-set></d:prop></d:set></c:mkcalendar>`
  t.equal((await b.dav('MKCALENDAR', '/dav/calendars/tasks-errands/', body('VTODO'))).status, 201)
  t.equal((await b.dav('MKCALENDAR', '/dav/calendars/tasks-other/', body('VEVENT'))).status, 403, 'a task list holds VTODO')
  t.equal((await b.dav('MKCALENDAR', '/dav/calendars/chores/', body('VTODO'))).status, 403, 'a calendar holds VEVENT')
  const named = await b.dav('PROPFIND', '/dav/calendars/tasks-errands/', PROPFIND('d:displayname'), { depth: '0' })
  t.match(named.body, '<d:displayname>Errands</d:displayname>')
  t.equal((await b.dav('PUT', '/dav/calendars/tasks-errands/a.ics', todo('a', 'SUMMARY:Post office\r\n'), ICS)).status, 201)
  const task = (await b.json('GET', '/api/v1/tasks?list_name=errands')).body.data[0]
  t.equal(task.title, 'Post office', 'the list is the list_name')
  t.equal((await b.dav('PUT', '/dav/calendars/tasks-nowhere/a.ics', todo('b', 'SUMMARY:x\r\n'), ICS)).status, 409, 'no such list')
  t.equal((await b.dav('DELETE', '/dav/calendars/tasks-errands/')).status, 204)
  t.equal((await b.json('GET', '/api/v1/tasks?only_deleted=true')).body.data[0].id, task.id, "a list's tasks go to the trash with it")
})

t.test('calendar-query, sync-collection and moves between lists follow the JSON side', async (t) => {
  const b = await davBench(t)
  const due = (await b.json('POST', '/api/v1/tasks', { title: 'Due', due_at: '2026-12-01T10:00:00Z' })).body.data
  const open = (await b.json('POST', '/api/v1/tasks', { title: 'Someday' })).body.data
  const all = await b.dav('REPORT', '/dav/calendars/tasks-default/', QUERY('VTODO'), { depth: '1' })
  t.equal(all.status, 207)
  t.equal([...all.body.matchAll(/<d:response>/g)].length, 2)
  const december = await b.dav(
    'REPORT',
    '/dav/calendars/tasks-default/',
    QUERY('VTODO', '<c:time-range start="20261201T000000Z" end="20261202T000000Z"/>'),
    { depth: '1' },
  )
  t.match(december.body, `${due.id}.ics`)
  t.match(december.body, `${open.id}.ics`, 'a task without dates is in every range')
  const january = await b.dav(
    'REPORT',
    '/dav/calendars/tasks-default/',
    QUERY('VTODO', '<c:time-range start="20270101T000000Z" end="20270102T000000Z"/>'),
    { depth: '1' },
  )
  t.notMatch(january.body, `${due.id}.ics`)
  t.equal((await b.dav('REPORT', '/dav/calendars/tasks-default/', QUERY('VEVENT'), { depth: '1' })).body.includes('<d:response>'), false)

  const first = await b.dav('REPORT', '/dav/calendars/tasks-default/', SYNC(), { depth: '1' })
  const token = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(first.body)?.[1] as string
  await b.json('PATCH', `/api/v1/tasks/${due.id}`, { list_name: 'work' })
  const since = await b.dav('REPORT', '/dav/calendars/tasks-default/', SYNC(token), { depth: '1' })
  t.match(since.body, new RegExp(`${due.id}\\.ics</d:href><d:status>HTTP/1.1 404`), 'moved away: gone from the old list')
  t.equal((await b.dav('GET', `/dav/calendars/tasks-work/${due.id}.ics`)).status, 200, 'and in the new one')
})
