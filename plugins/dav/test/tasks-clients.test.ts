import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { hasTool, startDaemon } from './daemon.js'

/**
 * Tasks with real clients against a daemon process: vdirsyncer syncing a task list both ways,
 * Debian's python3-caldav (save_todo, todos(), complete()), and VTODOs written by python3-icalendar
 * going through the iCalendar import and export, and through CalDAV with a change made on the
 * JSON side in between, read back by python3-icalendar property by property.
 */
const PYTHON = '/usr/bin/python3'
const canImport = (module: string) =>
  hasTool(PYTHON, ['-c', `import ${module}`]) && spawnSync(PYTHON, ['-c', `import ${module}`]).status === 0
const noVdirsyncer = hasTool('vdirsyncer') ? false : 'vdirsyncer is not installed (apt install vdirsyncer; .ci/run installs it)'
const noCaldav = canImport('caldav') ? false : 'python3-caldav is not installed (apt install python3-caldav; .ci/run installs it)'
const noIcalendar = canImport('icalendar')
  ? false
  : 'python3-icalendar is not installed (apt install python3-icalendar; .ci/run installs it)'

t.test('vdirsyncer: a task list, both ways', { skip: noVdirsyncer }, async (t) => {
  const d = await startDaemon(t)
  const local = join(d.dir, 'local')
  const config = join(d.dir, 'vdirsyncer.conf')
  writeFileSync(
    config,
    `[general]
status_path = "${join(d.dir, 'status')}/"

[pair tasks]
a = "tasks_local"
b = "tasks_remote"
collections = ["tasks-default"]
conflict_resolution = "b wins"

[storage tasks_local]
type = "filesystem"
path = "${local}/"
fileext = ".ics"

[storage tasks_remote]
type = "caldav"
url = "${d.base}/"
username = "${d.email}"
password = "${d.key}"
item_types = ["VTODO"]
`,
  )
  mkdirSync(local, { recursive: true })
  const run = (...args: string[]) => {
    const r = spawnSync('vdirsyncer', ['-c', config, ...args], { input: 'y\ny\ny\ny\n', encoding: 'utf8', timeout: 60_000 })
    t.equal(r.status, 0, `vdirsyncer ${args.join(' ')}: ${r.stderr.slice(-2000)}`)
  }
  const dir = join(local, 'tasks-default')
  const files = () => readdirSync(dir).filter((f) => !f.startsWith('.'))
  const fileWith = (text: string) => files().find((f) => readFileSync(join(dir, f), 'utf8').includes(text))

  await d.json('POST', '/api/v1/tasks', { title: 'Keeper' })
  const remote = (await d.json('POST', '/api/v1/tasks', { title: 'Call the plumber', due_at: '2026-12-01T09:00:00Z' })).body.data
  run('discover')
  run('sync')
  t.equal(files().length, 2, 'the remote tasks reached the folder')
  t.ok(fileWith('SUMMARY:Call the plumber'))

  writeFileSync(
    join(dir, 'paint.ics'),
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//local//EN\r\nBEGIN:VTODO\r\nUID:paint-local\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:Paint the fence\r\nDUE;VALUE=DATE:20261210\r\nX-LOCAL-THING:kept\r\nEND:VTODO\r\nEND:VCALENDAR\r\n',
  )
  run('sync')
  const paint = (await d.json('GET', '/api/v1/tasks?search=fence')).body.data[0]
  t.match(paint, { title: 'Paint the fence', due_at: '2026-12-10T00:00:00.000Z', all_day: true }, 'a local task reached Hearth')

  writeFileSync(
    join(dir, 'paint.ics'),
    'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//local//EN\r\nBEGIN:VTODO\r\nUID:paint-local\r\nDTSTAMP:20261101T000000Z\r\nSUMMARY:Paint the fence\r\nDUE;VALUE=DATE:20261210\r\nSTATUS:COMPLETED\r\nCOMPLETED:20261102T100000Z\r\nX-LOCAL-THING:kept\r\nEND:VTODO\r\nEND:VCALENDAR\r\n',
  )
  run('sync')
  t.match(
    (await d.json('GET', `/api/v1/tasks/${paint.id}`)).body.data,
    { status: 'completed', completed_at: '2026-11-02T10:00:00.000Z' },
    'completed on the local side',
  )

  await d.json('PATCH', `/api/v1/tasks/${remote.id}`, { priority: 2 })
  await d.json('PATCH', `/api/v1/tasks/${paint.id}`, { description: 'Two coats' })
  run('sync')
  t.match(readFileSync(join(dir, fileWith('Call the plumber') as string), 'utf8'), 'PRIORITY:2', 'a remote change reached the folder')
  const painted = readFileSync(join(dir, 'paint.ics'), 'utf8')
  t.match(painted, 'DESCRIPTION:Two coats')
  t.match(painted, 'X-LOCAL-THING:kept', 'what Hearth has no field for survives the change')

  rmSync(join(dir, 'paint.ics'))
  run('sync')
  t.equal((await d.json('GET', `/api/v1/tasks/${paint.id}`)).status, 404, 'a local delete reached Hearth (the trash)')
  await d.json('DELETE', `/api/v1/tasks/${remote.id}`)
  run('sync')
  t.same(
    files().map((f) => /SUMMARY:([^\r\n]+)/.exec(readFileSync(join(dir, f), 'utf8'))?.[1]),
    ['Keeper'],
    'a remote delete reached the folder',
  )
})

const CALDAV = String.raw`
import caldav, json, sys
from datetime import date, datetime, timezone
from icalendar import Calendar, Todo
url, user, password = sys.argv[1:4]
client = caldav.DAVClient(url + '/dav/', username=user, password=password)
principal = client.principal()
out = {'lists_before': sorted(str(c.url) for c in principal.calendars())}
shopping = principal.make_calendar(name='Shopping', cal_id='tasks-shopping', supported_calendar_component_set=['VTODO'])
def vtodo(uid, summary, **props):
    cal = Calendar()
    cal.add('prodid', '-//python-caldav test//EN')
    cal.add('version', '2.0')
    todo = Todo()
    todo.add('uid', uid)
    todo.add('dtstamp', datetime(2026, 11, 1, tzinfo=timezone.utc))
    todo.add('summary', summary)
    for key, value in props.items():
        todo.add(key.replace('_', '-'), value)
    cal.add_component(todo)
    return cal.to_ical().decode()
shopping.save_todo(vtodo('milk-1', 'Milk', due=date(2026, 12, 3), priority=1, categories=['dairy']))
shopping.save_todo(vtodo('bread-1', 'Bread', due=datetime(2026, 12, 4, 9, 0, tzinfo=timezone.utc)))
shopping.save_todo(vtodo('eggs-1', 'Eggs', x_shop_aisle='7'))
out['lists_after'] = sorted(str(c.url) for c in principal.calendars())
names = lambda todos: sorted(t.instance.vtodo.summary.value for t in todos)
out['pending'] = names(shopping.todos())
for todo in shopping.todos():
    if todo.instance.vtodo.summary.value == 'Milk':
        todo.complete()
out['pending_after'] = names(shopping.todos())
out['all'] = names(shopping.todos(include_completed=True))
print(json.dumps(out))
`

t.test('python3-caldav: save_todo, todos(), complete()', { skip: noCaldav }, async (t) => {
  const d = await startDaemon(t)
  const r = spawnSync(PYTHON, ['-c', CALDAV, d.base, d.email, d.key], { encoding: 'utf8', timeout: 60_000 })
  t.equal(r.status, 0, r.stderr.slice(-3000))
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}')
  t.same(
    out.lists_before,
    [`${d.base}/dav/calendars/birthdays/`, `${d.base}/dav/calendars/default/`, `${d.base}/dav/calendars/tasks-default/`],
    'a task list beside the calendars',
  )
  t.same(out.lists_after, [
    `${d.base}/dav/calendars/birthdays/`,
    `${d.base}/dav/calendars/default/`,
    `${d.base}/dav/calendars/tasks-default/`,
    `${d.base}/dav/calendars/tasks-shopping/`,
  ])
  t.same(out.pending, ['Bread', 'Eggs', 'Milk'])
  t.same(out.pending_after, ['Bread', 'Eggs'], 'a completed task is no longer pending')
  t.same(out.all, ['Bread', 'Eggs', 'Milk'])
  const tasks = (await d.json('GET', '/api/v1/tasks?list_name=shopping&limit=10')).body.data
  const milk = tasks.find((x: { title: string }) => x.title === 'Milk')
  t.match(milk, { status: 'completed', priority: 1, tags: ['dairy'], due_at: '2026-12-03T00:00:00.000Z', all_day: true })
  t.ok(milk.completed_at, 'completed_at set from COMPLETED')
  const eggs = tasks.find((x: { title: string }) => x.title === 'Eggs')
  await d.json('PATCH', `/api/v1/tasks/${eggs.id}`, { title: 'Free-range eggs' })
  const exported = await (await fetch(`${d.base}/api/v1/tasks/export`, { headers: { authorization: `Bearer ${d.token}` } })).text()
  t.match(exported, 'X-SHOP-AISLE:7', "a property python's icalendar wrote survives a change on the JSON side")
})

/** VTODOs as python3-icalendar writes them, and the same read back by it into comparable values. */
const GENERATE = String.raw`
from datetime import date, datetime, timedelta, timezone
from icalendar import Alarm, Calendar, Todo
import pytz
paris = pytz.timezone('Europe/Paris')
cal = Calendar()
cal.add('prodid', '-//python icalendar fixtures//EN')
cal.add('version', '2.0')
def todo(uid, summary, **props):
    t = Todo()
    t.add('uid', uid)
    t.add('dtstamp', datetime(2026, 11, 1, tzinfo=timezone.utc))
    t.add('summary', summary)
    for key, value in props.items():
        if key == 'related':
            t.add('related-to', value, parameters={'RELTYPE': 'PARENT'})
        else:
            t.add(key.replace('_', '-'), value)
    return t
parent = todo('renovate', 'Renovate the kitchen', description='Before spring', priority=2, categories=['house', 'big'])
cal.add_component(parent)
child = todo('tiles', 'Choose tiles', dtstart=paris.localize(datetime(2026, 12, 1, 9, 0)), due=paris.localize(datetime(2026, 12, 8, 18, 30)),
             related='renovate', x_apple_sort_order='3', percent_complete=20, status='IN-PROCESS')
alarm = Alarm()
alarm.add('action', 'DISPLAY')
alarm.add('description', 'Tiles')
alarm.add('trigger', timedelta(hours=-2), parameters={'RELATED': 'END'})
child.add_component(alarm)
cal.add_component(child)
cal.add_component(todo('bins', 'Put the bins out', due=date(2026, 12, 2), rrule={'freq': 'weekly', 'byday': 'WE', 'count': 10}))
cal.add_component(todo('done', 'Book the plumber', status='COMPLETED', completed=datetime(2026, 11, 20, 8, 0, tzinfo=timezone.utc)))
print(cal.to_ical().decode(), end='')
`
const READ = String.raw`
import json, sys
from datetime import datetime, timezone
from icalendar import Calendar
def value(v):
    if hasattr(v, 'dt'):
        v = v.dt
    if isinstance(v, datetime):
        return v.astimezone(timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')
    if hasattr(v, 'isoformat'):
        return v.isoformat()
    if hasattr(v, 'to_ical'):
        return v.to_ical().decode()
    return str(v)
out = {}
for path in sys.argv[1:]:
    todos = {}
    for t in Calendar.from_ical(open(path).read()).walk('VTODO'):
        props = {}
        for name in ['SUMMARY', 'DESCRIPTION', 'STATUS', 'PRIORITY', 'DTSTART', 'DUE', 'COMPLETED', 'RRULE', 'RELATED-TO', 'X-APPLE-SORT-ORDER', 'PERCENT-COMPLETE']:
            if name in t:
                props[name] = value(t[name])
        # NEEDS-ACTION is what a VTODO without STATUS is (RFC 5545 3.8.1.11); Hearth writes it out.
        props.setdefault('STATUS', 'NEEDS-ACTION')
        if 'CATEGORIES' in t:
            cats = t['CATEGORIES']
            props['CATEGORIES'] = sorted(','.join(value(c) for c in (cats if isinstance(cats, list) else [cats])).split(','))
        props['ALARMS'] = [value(a['TRIGGER']) + '/' + str(a['TRIGGER'].params.get('RELATED', 'START')) for a in t.walk('VALARM')]
        todos[str(t['UID'])] = props
    out[path] = todos
print(json.dumps(out))
`

t.test('python3-icalendar VTODOs round-trip through import/export and through CalDAV', { skip: noIcalendar }, async (t) => {
  const d = await startDaemon(t)
  const gen = spawnSync(PYTHON, ['-c', GENERATE], { encoding: 'utf8' })
  t.equal(gen.status, 0, gen.stderr)
  const original = gen.stdout
  const form = new FormData()
  form.append('file', new Blob([original], { type: 'text/calendar' }), 'tasks.ics')
  const imported = (await (
    await fetch(`${d.base}/api/v1/tasks/import`, { method: 'POST', headers: { authorization: `Bearer ${d.token}` }, body: form })
  ).json()) as { data: { imported: number; failed: unknown[] } }
  t.equal(imported.data.imported, 4, JSON.stringify(imported.data.failed))
  const tasks = (await d.json('GET', '/api/v1/tasks?limit=10')).body.data
  const byTitle = (title: string) => tasks.find((x: { title: string }) => x.title === title)
  t.equal(byTitle('Choose tiles').parent_id, byTitle('Renovate the kitchen').id, 'the subtask is linked to its parent of the same file')
  t.match(byTitle('Choose tiles'), { timezone: 'Europe/Paris', status: 'in-process', reminders: [{ minutes_before: 120 }] })

  // A change on the JSON side, then the whole list out again.
  await d.json('PATCH', `/api/v1/tasks/${byTitle('Choose tiles').id}`, { description: 'Blue ones' })
  const exported = await (await fetch(`${d.base}/api/v1/tasks/export`, { headers: { authorization: `Bearer ${d.token}` } })).text()

  // The same VTODOs through CalDAV, one object each, into a fresh list.
  const auth = `Basic ${Buffer.from(`${d.email}:${d.key}`).toString('base64')}`
  const single = (uid: string) => {
    const head = original.slice(0, original.indexOf('BEGIN:VTODO'))
    const block = original.split('BEGIN:VTODO').find((b) => b.includes(`UID:${uid}\r\n`)) as string
    return `${head}BEGIN:VTODO${block.slice(0, block.indexOf('END:VTODO'))}END:VTODO\r\nEND:VCALENDAR\r\n`
  }
  await fetch(`${d.base}/dav/calendars/tasks-fixtures/`, { method: 'MKCALENDAR', headers: { authorization: auth } })
  for (const uid of ['renovate', 'tiles', 'bins', 'done']) {
    const put = await fetch(`${d.base}/dav/calendars/tasks-fixtures/${uid}.ics`, {
      method: 'PUT',
      headers: { authorization: auth, 'content-type': 'text/calendar' },
      body: single(uid),
    })
    t.equal(put.status, 201, `PUT ${uid}`)
  }
  const fixtures = (await d.json('GET', '/api/v1/tasks?list_name=fixtures&limit=10')).body.data
  const tiles = fixtures.find((x: { title: string }) => x.title === 'Choose tiles')
  await d.json('PATCH', `/api/v1/tasks/${tiles.id}`, { description: 'Blue ones' })
  let dav = ''
  for (const uid of ['renovate', 'tiles', 'bins', 'done']) {
    const text = await (await fetch(`${d.base}/dav/calendars/tasks-fixtures/${uid}.ics`, { headers: { authorization: auth } })).text()
    dav += text.slice(text.indexOf('BEGIN:VTODO'), text.indexOf('END:VCALENDAR'))
  }
  dav = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//joined//EN\r\n${dav}END:VCALENDAR\r\n`

  const paths = ['original.ics', 'exported.ics', 'dav.ics'].map((name) => join(d.dir, name))
  ;[original, exported, dav].forEach((text, i) => writeFileSync(paths[i] as string, text))
  const read = spawnSync(PYTHON, ['-c', READ, ...paths], { encoding: 'utf8' })
  t.equal(read.status, 0, read.stderr)
  const parsed = JSON.parse(read.stdout) as Record<string, Record<string, Record<string, unknown>>>
  const expected = parsed[paths[0] as string] as Record<string, Record<string, unknown>>
  expected.tiles = { ...expected.tiles, DESCRIPTION: 'Blue ones' }
  for (const [label, path] of [
    ['import/export', paths[1]],
    ['CalDAV', paths[2]],
  ] as const) {
    const got = parsed[path as string] as Record<string, Record<string, unknown>>
    t.same(Object.keys(got).sort(), Object.keys(expected).sort(), `${label}: every UID kept`)
    for (const uid of Object.keys(expected)) t.same(got[uid], expected[uid], `${label}: ${uid} property by property`)
  }
})
