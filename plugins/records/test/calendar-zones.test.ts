import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { sourcePath } from '../../../test/paths.js'
import { bench, exportOf, importInto } from './records-app.js'

/**
 * Calendars other software wrote (fixtures/calendars, shapes cited in its README),
 * imported through the API on an instance whose zone (Asia/Tokyo) is none of the
 * events' zones; each series' occurrences in a year-long window are compared with
 * an independent expander run in the test (python's dateutil with zoneinfo), and
 * the export is read back property by property. CI runs this under three process TZs.
 */
const fixture = (name: string) => readFileSync(sourcePath(import.meta.url, `fixtures/calendars/${name}`))

const EXPANDER = `
import json, sys
from datetime import datetime, timezone
from zoneinfo import ZoneInfo
from dateutil.rrule import rrulestr, rruleset
out = []
for s in json.loads(sys.argv[1]):
    naive = s['allDay']
    tz = ZoneInfo(s['tz'])
    def parse(v):
        if len(v) == 8:
            d = datetime.strptime(v, '%Y%m%d')
            return d if naive else d.replace(tzinfo=tz)
        if v.endswith('Z'):
            return datetime.strptime(v, '%Y%m%dT%H%M%SZ').replace(tzinfo=timezone.utc)
        return datetime.strptime(v, '%Y%m%dT%H%M%S').replace(tzinfo=tz)
    rs = rruleset()
    rs.rrule(rrulestr(s['rrule'], dtstart=parse(s['dtstart'])))
    for x in s['exdates']:
        rs.exdate(parse(x))
    lo, hi = (datetime.fromisoformat(b.replace('Z', '+00:00')) for b in (s['from'], s['to']))
    if naive:
        lo, hi = lo.replace(tzinfo=None), hi.replace(tzinfo=None)
    occ = rs.between(lo, hi, inc=True)
    out.append([(o if naive else o.astimezone(timezone.utc)).strftime('%Y-%m-%dT%H:%M:%S.000Z') for o in occ])
print(json.dumps(out))
`

interface Series {
  title: string
  /** As the file writes them, for the independent expander. */
  dtstart: string
  tz: string
  allDay?: boolean
  rrule: string
  exdates?: string[]
}

const WINDOW = { from: '2026-01-01T00:00:00Z', to: '2027-01-01T00:00:00Z' }

/** An occurrence another VEVENT of the file replaced (RECURRENCE-ID): listed once, at its new instant. */
interface Moved {
  title: string
  start_at: string
}

const CASES: Array<{ file: string; series: Series[]; zones: Record<string, string>; kept?: string[]; moved?: Moved[] }> = [
  {
    file: 'google-new-york.ics',
    zones: { 'Piano lesson': 'America/New_York' },
    series: [
      {
        title: 'Piano lesson',
        dtstart: '20260106T090000',
        tz: 'America/New_York',
        rrule: 'FREQ=WEEKLY;WKST=SU;INTERVAL=2;BYDAY=TU',
        // The file's three EXDATEs, then the two starts its RECURRENCE-ID events replace: 14 April
        // moved to Wednesday 15 April 17:00 EDT, 26 May cancelled (STATUS:CANCELLED).
        exdates: ['20260203T090000', '20260317T090000', '20260331T090000', '20260414T090000', '20260526T090000'],
      },
    ],
    moved: [{ title: 'Piano lesson (moved to Wednesday)', start_at: '2026-04-15T21:00:00.000Z' }],
  },
  {
    file: 'apple-sydney.ics',
    zones: { 'Family dinner': 'Australia/Sydney' },
    kept: [
      'UID:9E1C2A44-6B7D-4E2B-9C3A-2F1B0D5E8A71',
      'X-APPLE-TRAVEL-ADVISORY-BEHAVIOR:AUTOMATIC',
      'TRANSP:OPAQUE',
      'SEQUENCE:0',
      'ACTION:AUDIO',
    ],
    series: [{ title: 'Family dinner', dtstart: '20260201T180000', tz: 'Australia/Sydney', rrule: 'FREQ=MONTHLY;COUNT=12;BYDAY=1SU' }],
  },
  {
    file: 'outlook-paris.ics',
    zones: { 'Point hebdo': 'Europe/Paris' },
    kept: ['CLASS:PUBLIC', 'PRIORITY:5', 'X-MICROSOFT-CDO-BUSYSTATUS:BUSY', 'ORGANIZER;CN="Curie, Marie":mailto:marie@example.org'],
    series: [
      { title: 'Point hebdo', dtstart: '20260302T080000', tz: 'Europe/Paris', rrule: 'FREQ=WEEKLY;UNTIL=20260430T060000Z;BYDAY=MO,TH' },
    ],
  },
  {
    file: 'thunderbird-allday-utc.ics',
    zones: { 'Backup check (UTC)': 'UTC' },
    series: [
      { title: 'Easter at the lake', dtstart: '20260328', tz: 'UTC', allDay: true, rrule: 'FREQ=YEARLY;UNTIL=20300328' },
      { title: 'Backup check (UTC)', dtstart: '20260320T230000Z', tz: 'UTC', rrule: 'FREQ=DAILY;COUNT=20', exdates: ['20260325T230000Z'] },
    ],
  },
]

type Item = { id: string; title: string; start_at: string; end_at: string | null; recurrence_id?: string; timezone: string }

function expandIndependently(series: Series[]): string[][] {
  const spec = series.map((s) => ({ ...s, allDay: Boolean(s.allDay), exdates: s.exdates ?? [], ...WINDOW }))
  return JSON.parse(execFileSync('python3', ['-c', EXPANDER, JSON.stringify(spec)], { encoding: 'utf8' })) as string[][]
}

for (const { file, series, zones, kept = [], moved = [] } of CASES) {
  t.test(`${file}: occurrences match an independent expander, whatever the instance and process zones`, async (t) => {
    const first = await bench(t, { env: { HEARTH_TIMEZONE: 'Asia/Tokyo' } })
    const { call } = first
    const res = await importInto(first, 'events', file, fixture(file))
    t.equal(res.status, 200)
    t.same(res.data.failed, [], 'every entry imported')

    const list = await call('GET', `/events?from=${WINDOW.from}&to=${WINDOW.to}&limit=200`)
    const items = list.body.data as Item[]
    const expected = expandIndependently(series)
    series.forEach((s, i) => {
      const got = items.filter((item) => item.title === s.title).map((item) => item.start_at)
      t.same(got, expected[i], `${s.title}: ${expected[i]?.length} occurrences, each at the expander's instant`)
    })
    for (const m of moved) {
      const found = items.filter((item) => item.title === m.title)
      t.same(
        found.map((item) => item.start_at),
        [m.start_at],
        `${m.title}: the overridden occurrence is listed once, at its new instant`,
      )
    }
    for (const [title, zone] of Object.entries(zones)) {
      t.equal(items.find((item) => item.title === title)?.timezone, zone, `${title} keeps its zone`)
    }

    // Export and read back: every property the API shows survives.
    const exported = { body: await exportOf(first, 'events') }
    const again = await bench(t, { env: { HEARTH_TIMEZONE: 'America/Los_Angeles' } })
    t.same((await importInto(again, 'events', 'export.ics', exported.body)).data.failed, [])
    for (const line of kept) t.match(exported.body, `\r\n${line}\r\n`, `kept and given back: ${line}`)
    t.notMatch(exported.body, kept.some((l) => l.startsWith('UID:')) ? /UID:.*@hearth/ : /^$/, 'the UID the client wrote stays')
    const reexported = { body: await exportOf(again, 'events') }
    for (const line of kept) t.match(reexported.body, `\r\n${line}\r\n`, `and survives a second round: ${line}`)
    // Ids, owners and versions (etag) are each instance's own history: a link to a series (recurrence_id) is compared by the series' title.
    const comparable = (all: Item[]) => {
      const titles = new Map(all.map((r) => [r.id, r.title]))
      return all.map(({ id: _id, owner_id: _o, created_at: _c, updated_at: _u, etag: _e, ...rest }: Item & Record<string, unknown>) =>
        rest.recurrence_id ? { ...rest, recurrence_id: titles.get(rest.recurrence_id) } : rest,
      )
    }
    const before = comparable((await call('GET', '/events?limit=200')).body.data as Item[])
    const after = comparable((await again.call('GET', '/events?limit=200')).body.data as Item[])
    t.same(after, before, 'the export read back gives the same events, property by property')
    const relisted = await again.call('GET', `/events?from=${WINDOW.from}&to=${WINDOW.to}&limit=200`)
    t.same(
      (relisted.body.data as Item[]).map((i) => [i.title, i.start_at]),
      items.map((i) => [i.title, i.start_at]),
      'and the same occurrences on an instance in another zone',
    )
  })
}

t.test('wall-clock times hold across DST; all-day events never shift', async (t) => {
  const { call } = await bench(t, { env: { HEARTH_TIMEZONE: 'Europe/Paris' } })
  const created = await call('POST', '/events', {
    title: 'Standup',
    start_at: '2026-03-02T14:00:00Z',
    timezone: 'America/New_York',
    recurrence: { freq: 'WEEKLY', byday: ['MO'], count: 3 },
  })
  t.equal(created.status, 201)
  const list = await call('GET', '/events?from=2026-03-01&to=2026-03-31')
  t.same(
    (list.body.data as Item[]).map((i) => i.start_at),
    ['2026-03-02T14:00:00.000Z', '2026-03-09T13:00:00.000Z', '2026-03-16T13:00:00.000Z'],
    '09:00 New York before and after 8 March',
  )
  const holiday = await call('POST', '/events', {
    title: 'Holiday',
    start_at: '2026-10-24T00:00:00+02:00',
    all_day: true,
    recurrence: { freq: 'DAILY', count: 3 },
  })
  t.equal(holiday.body.data.start_at, '2026-10-24T00:00:00.000Z')
  const days = await call('GET', '/events?from=2026-10-24&to=2026-10-31')
  t.same(
    (days.body.data as Item[]).filter((i) => i.title === 'Holiday').map((i) => i.start_at),
    ['2026-10-24T00:00:00.000Z', '2026-10-25T00:00:00.000Z', '2026-10-26T00:00:00.000Z'],
    'the same dates across the 25 October change',
  )
})

t.test('exdates: excluded starts are left out of lists and export, and count toward COUNT', async (t) => {
  const { app, call, token } = await bench(t)
  await call('POST', '/events', {
    title: 'Gym',
    start_at: '2026-06-01T06:00:00Z',
    recurrence: { freq: 'DAILY', count: 5, exdates: ['2026-06-02T06:00:00Z', '2026-06-04'] },
  })
  const list = await call('GET', '/events?from=2026-06-01&to=2026-06-30')
  t.same(
    (list.body.data as Item[]).map((i) => i.start_at),
    ['2026-06-01T06:00:00.000Z', '2026-06-03T06:00:00.000Z', '2026-06-05T06:00:00.000Z'],
  )
  const exported = await app.inject({ method: 'GET', url: '/api/v1/events/export', headers: { authorization: `Bearer ${token}` } })
  t.match(exported.body, 'EXDATE:20260602T060000Z')
  t.match(exported.body, 'EXDATE:20260604T060000Z', 'a bare day is written at the series time of day')
})
