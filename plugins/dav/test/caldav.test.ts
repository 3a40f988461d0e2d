import { spawnSync } from 'node:child_process'
import t from 'tap'
import { hasTool, startDaemon } from './daemon.js'

/**
 * Debian's python3-caldav (the library many sync tools build on) against a daemon: discovery
 * from the principal, MKCALENDAR, naming and colouring it (PROPPATCH), saving events (a weekly series among them), a time-range
 * search that expands the recurrence server-side, and deletion.
 */
const PYTHON = '/usr/bin/python3'
const hasCaldav = hasTool(PYTHON, ['-c', 'import caldav']) && spawnSync(PYTHON, ['-c', 'import caldav']).status === 0
const skip = hasCaldav ? false : 'python3-caldav is not installed (apt install python3-caldav; .ci/run installs it)'

const SCRIPT = String.raw`
import caldav, datetime, json, sys
url, user, password = sys.argv[1:4]
client = caldav.DAVClient(url + '/dav/', username=user, password=password)
principal = client.principal()
out = {'calendars_before': sorted(str(c.url) for c in principal.calendars())}
cal = principal.make_calendar(name='Trips', cal_id='trips')
out['name_made'] = cal.get_display_name()
from caldav.elements import dav, ical
cal.set_properties([dav.DisplayName('Trips & travel'), ical.CalendarColor('#FF2968FF')])
fresh = [c for c in principal.calendars() if str(c.url).endswith('/trips/')][0]
props = fresh.get_properties([dav.DisplayName(), ical.CalendarColor()])
out['name_set'] = props.get(dav.DisplayName.tag)
out['color_set'] = props.get(ical.CalendarColor.tag)
def ics(uid, summary, start, extra='', end=None):
    end = end or start[:9] + '%02d' % (int(start[9:11]) + 1) + start[11:]
    return ('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//python-caldav test//EN\r\nBEGIN:VEVENT\r\n'
            'UID:%s\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:%s\r\nDTEND:%s\r\nSUMMARY:%s\r\n%sEND:VEVENT\r\nEND:VCALENDAR\r\n'
            % (uid, start, end, summary, extra))
cal.save_event(ics('flight-1', 'Flight', '20260310T080000Z'))
cal.save_event(ics('hotel-1', 'Hotel', '20260601T140000Z'))
cal.save_event(ics('weekly-1', 'Weekly call', '20260105T160000Z', 'RRULE:FREQ=WEEKLY;BYDAY=MO\r\n'))
out['calendars_after'] = sorted(str(c.url) for c in principal.calendars())
def search(start, end):
    found = cal.date_search(start, end)
    return sorted(e.instance.vevent.summary.value for e in found)
out['march'] = search(datetime.datetime(2026, 3, 1), datetime.datetime(2026, 4, 1))
out['june_first_week'] = search(datetime.datetime(2026, 6, 1), datetime.datetime(2026, 6, 7))
out['a_tuesday'] = search(datetime.datetime(2026, 9, 8), datetime.datetime(2026, 9, 9))
for e in cal.date_search(datetime.datetime(2026, 3, 1), datetime.datetime(2026, 4, 1)):
    if e.instance.vevent.summary.value == 'Flight':
        e.delete()
out['after_delete'] = sorted(e.instance.vevent.summary.value for e in cal.events())
print(json.dumps(out))
`

t.test('python3-caldav: calendars, events, time-range search, delete', { skip }, async (t) => {
  const d = await startDaemon(t)
  const r = spawnSync(PYTHON, ['-c', SCRIPT, d.base, d.email, d.key], { encoding: 'utf8', timeout: 60_000 })
  t.equal(r.status, 0, r.stderr.slice(-3000))
  const out = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}')
  t.same(
    out.calendars_before,
    [`${d.base}/dav/calendars/birthdays/`, `${d.base}/dav/calendars/default/`, `${d.base}/dav/calendars/tasks-default/`],
    'the calendar and the task list',
  )
  t.same(
    out.calendars_after,
    [
      `${d.base}/dav/calendars/birthdays/`,
      `${d.base}/dav/calendars/default/`,
      `${d.base}/dav/calendars/tasks-default/`,
      `${d.base}/dav/calendars/trips/`,
    ],
    'MKCALENDAR made a calendar',
  )
  t.equal(out.name_made, 'Trips', "MKCALENDAR's body named it")
  t.equal(out.name_set, 'Trips & travel', 'set_properties (PROPPATCH) renamed it')
  t.equal(out.color_set, '#FF2968FF', 'and coloured it')
  t.same(out.march, ['Flight', 'Weekly call'], 'the weekly series has Mondays in March')
  t.same(out.june_first_week, ['Hotel', 'Weekly call'])
  t.same(out.a_tuesday, [], 'no instance on a Tuesday')
  t.same(out.after_delete, ['Hotel', 'Weekly call'])
  const events = (await d.json('GET', '/api/v1/events?calendar_name=trips&limit=100')).body.data
  t.same(events.map((e: { title: string }) => e.title).sort(), ['Hotel', 'Weekly call'], 'the JSON API sees the same events')
})
