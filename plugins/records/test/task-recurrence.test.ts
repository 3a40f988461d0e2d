import { execFileSync } from 'node:child_process'
import t from 'tap'
import { bench } from './records-app.js'

/**
 * Completing a recurring task moves it to its next due date. The due dates a task goes through,
 * completed again and again until it is completed for good, are compared with an independent
 * expander run in the test (python-dateutil with zoneinfo, Debian's /usr/bin/python3) over the
 * same rule from the first due date: the same RFC 5545 semantics as events' recurrences.
 */
const EXPANDER = `
import json, sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo
from dateutil.rrule import rrulestr, rruleset
s = json.loads(sys.argv[1])
tz = ZoneInfo(s['tz'])
naive = s['allDay']
start = datetime.fromisoformat(s['due'].replace('Z', '+00:00'))
start = start.replace(tzinfo=None) if naive else start.astimezone(tz)
rs = rruleset()
rs.rrule(rrulestr(s['rrule'], dtstart=start))
for x in s['exdates']:
    d = datetime.fromisoformat(x.replace('Z', '+00:00'))
    rs.exdate(d.replace(tzinfo=None) if naive else d.astimezone(tz))
out = []
for o in rs:
    if len(out) >= s['max']:
        break
    out.append((o if naive else o.astimezone(timezone.utc)).strftime('%Y-%m-%dT%H:%M:%S.000Z'))
print(json.dumps(out))
`

interface Case {
  name: string
  zone: string
  due: string
  allDay?: boolean
  recurrence: Record<string, unknown>
  rrule: string
  start?: string
}

const CASES: Case[] = [
  {
    name: 'weekly Monday and Thursday 09:00 Berlin across the end of summer time, 6 times',
    zone: 'Europe/Berlin',
    due: '2026-10-19T07:00:00Z',
    recurrence: { freq: 'WEEKLY', byday: ['MO', 'TH'], count: 6 },
    rrule: 'FREQ=WEEKLY;BYDAY=MO,TH;COUNT=6',
  },
  {
    name: 'monthly on the 31st (months without one are skipped), until a date',
    zone: 'America/New_York',
    due: '2027-01-31T14:00:00Z',
    recurrence: { freq: 'MONTHLY', bymonthday: [31], until: '2027-08-31' },
    rrule: 'FREQ=MONTHLY;BYMONTHDAY=31;UNTIL=20270901T035959Z',
  },
  {
    name: 'every other day, count 5 with an excluded one still counted',
    zone: 'UTC',
    due: '2026-12-01T18:00:00Z',
    recurrence: { freq: 'DAILY', interval: 2, count: 5, exdates: ['2026-12-05T18:00:00Z'] },
    rrule: 'FREQ=DAILY;INTERVAL=2;COUNT=5',
  },
  {
    name: 'all-day, the last Friday of each month, 4 times',
    zone: 'Pacific/Auckland',
    due: '2026-11-27T00:00:00Z',
    allDay: true,
    recurrence: { freq: 'MONTHLY', byday: ['-1FR'], count: 4 },
    rrule: 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=4',
  },
  {
    name: 'yearly on 29 February, 3 times, with a start two days before the due date',
    zone: 'Europe/London',
    due: '2028-02-29T12:00:00Z',
    start: '2028-02-27T12:00:00Z',
    recurrence: { freq: 'YEARLY', bymonth: [2], bymonthday: [29], count: 3 },
    rrule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=3',
  },
]

for (const c of CASES) {
  t.test(`completing a recurring task: ${c.name}`, async (t) => {
    const { call } = await bench(t)
    const exdates = (c.recurrence.exdates as string[] | undefined) ?? []
    const expected = JSON.parse(
      execFileSync(
        '/usr/bin/python3',
        ['-c', EXPANDER, JSON.stringify({ tz: c.zone, allDay: Boolean(c.allDay), due: c.due, rrule: c.rrule, exdates, max: 50 })],
        { encoding: 'utf8' },
      ),
    ) as string[]
    t.ok(expected.length > 1, `dateutil lists ${expected.length} due dates`)
    const created = await call('POST', '/tasks', {
      title: c.name,
      due_at: c.due,
      ...(c.start ? { start_at: c.start } : {}),
      all_day: Boolean(c.allDay),
      timezone: c.zone,
      recurrence: c.recurrence,
    })
    t.equal(created.status, 201, JSON.stringify(created.body.error ?? ''))
    const id = created.body.data.id as string
    const seen: string[] = [created.body.data.due_at]
    const gap = c.start ? Date.parse(c.due) - Date.parse(c.start) : null
    for (let i = 0; i < 60; i++) {
      const done = (await call('POST', `/tasks/${id}/complete`)).body.data
      if (done.status === 'completed') {
        t.equal(done.due_at, seen.at(-1), 'the last round is completed for good, where it was due')
        t.ok(done.completed_at)
        break
      }
      t.equal(done.status, 'needs-action')
      t.equal(done.completed_at, null)
      if (gap !== null) t.equal(Date.parse(done.due_at) - Date.parse(done.start_at), gap, 'the start moves with the due date')
      seen.push(done.due_at)
    }
    t.same(seen, expected, 'the due dates are the rule’s occurrences as python-dateutil expands them')
  })
}

t.test('PATCH status completed ends a recurring task for good (a client’s own decision)', async (t) => {
  const { call } = await bench(t)
  const task = (await call('POST', '/tasks', { title: 'Weekly review', due_at: '2026-12-04T16:00:00Z', recurrence: { freq: 'WEEKLY' } }))
    .body.data
  const patched = (await call('PATCH', `/tasks/${task.id}`, { status: 'completed' })).body.data
  t.equal(patched.status, 'completed')
  t.equal(patched.due_at, '2026-12-04T16:00:00.000Z')
})
