import { spawnSync } from 'node:child_process'
import t from 'tap'
import { davBench } from './dav-app.js'

/**
 * CalDAV free-busy-query (RFC 4791 7.10) on a calendar: one VFREEBUSY of its busy periods (a
 * weekly series with an exdate and a moved occurrence, a cancelled event left out), only that
 * calendar's, no titles; a missing or reversed time-range is refused. The answer is read back
 * by Debian's python3-icalendar when it is installed.
 */

const QUERY = (start: string, end: string) =>
  `<?xml version="1.0"?><c:free-busy-query xmlns:c="urn:ietf:params:xml:ns:caldav"><c:time-range start="${start}" end="${end}"/></c:free-busy-query>`

const PYTHON = '/usr/bin/python3'
const hasIcalendar = spawnSync(PYTHON, ['-c', 'import icalendar']).status === 0

t.test('free-busy-query answers the busy periods of one calendar', async (t) => {
  const b = await davBench(t)
  const series = await b.json('POST', '/api/v1/events', {
    title: 'Secret standup',
    start_at: '2026-11-02T09:00:00Z',
    end_at: '2026-11-02T10:00:00Z',
    timezone: 'UTC',
    recurrence: { freq: 'WEEKLY', count: 3, exdates: ['2026-11-09T09:00:00.000Z'] },
  })
  t.equal(series.status, 201)
  const moved = await b.json('PATCH', `/api/v1/events/${series.body.data.id}?scope=this&occurrence_start=2026-11-16T09:00:00.000Z`, {
    start_at: '2026-11-16T15:00:00Z',
  })
  t.equal(moved.status, 200)
  await b.json('POST', '/api/v1/events', { title: 'Off', start_at: '2026-11-03T09:00:00Z', status: 'cancelled' })
  await b.json('POST', '/api/v1/events', { title: 'Elsewhere', start_at: '2026-11-04T09:00:00Z', calendar_name: 'Work' })

  const res = await b.dav('REPORT', '/dav/calendars/default/', QUERY('20261101T000000Z', '20261201T000000Z'), { depth: '1' })
  t.equal(res.status, 200)
  t.match(String(res.headers['content-type']), /^text\/calendar/)
  t.match(res.body, /BEGIN:VFREEBUSY\r\n/)
  t.match(res.body, /DTSTART:20261101T000000Z\r\nDTEND:20261201T000000Z\r\n/)
  const periods = res.body.split('\r\n').filter((l) => l.startsWith('FREEBUSY'))
  t.same(periods, ['FREEBUSY;FBTYPE=BUSY:20261102T090000Z/20261102T100000Z', 'FREEBUSY;FBTYPE=BUSY:20261116T150000Z/20261116T160000Z'])
  t.notMatch(res.body, /Secret|SUMMARY/, 'no titles')

  if (hasIcalendar) {
    const read = spawnSync(
      PYTHON,
      [
        '-c',
        'import sys, icalendar; c = icalendar.Calendar.from_ical(sys.stdin.read()); fb = list(c.walk("VFREEBUSY"))[0]; v = fb.get("FREEBUSY"); print(len(v if isinstance(v, list) else [v]))',
      ],
      { input: res.body, encoding: 'utf8' },
    )
    t.equal(read.stdout.trim(), '2', 'python3-icalendar reads two periods')
  }

  const work = await b.dav('REPORT', '/dav/calendars/Work/', QUERY('20261101T000000Z', '20261201T000000Z'))
  t.same(
    work.body.split('\r\n').filter((l) => l.startsWith('FREEBUSY')),
    ['FREEBUSY;FBTYPE=BUSY:20261104T090000Z/20261104T100000Z'],
    "only that calendar's events",
  )
  t.equal((await b.dav('REPORT', '/dav/calendars/default/', QUERY('20261201T000000Z', '20261101T000000Z'))).status, 400, 'end before start')
  t.equal(
    (await b.dav('REPORT', '/dav/calendars/default/', '<?xml version="1.0"?><c:free-busy-query xmlns:c="urn:ietf:params:xml:ns:caldav"/>'))
      .status,
    400,
    'no time-range',
  )
  t.equal((await b.dav('REPORT', '/dav/calendars/default/', QUERY('20260101T000000Z', '20280101T000000Z'))).status, 400, 'over 366 days')
  t.equal((await b.dav('REPORT', '/dav/calendars/nothing/', QUERY('20261101T000000Z', '20261201T000000Z'))).status, 404, 'no such calendar')
})
