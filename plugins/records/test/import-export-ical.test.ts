import { readFileSync } from 'node:fs'
import t from 'tap'
import { sourcePath } from '../../../test/paths.js'
import { parseICalendar } from '../formats/ics-parse.js'
import { serializeICalendar } from '../formats/ics-serialize.js'
import type { EventRecord } from '../formats/types.js'

const fixture = (name: string) => readFileSync(sourcePath(import.meta.url, `fixtures/${name}`), 'utf8')

t.test('Google Calendar export: TZID times, RRULE with BYDAY and UNTIL, all-day, attendees, alarms', async (t) => {
  const { entries, failed } = parseICalendar(fixture('google-calendar.ics'))
  t.equal(entries.length, 3)
  const standup = entries[0].record
  t.same(standup, {
    title: 'Standup',
    description: 'Quick sync: blockers, plans, questions.\nJoin: https://meet.google.com/abc-defg-hij',
    location: 'Office, Room 4.12',
    start_at: '2026-11-02T08:00:00.000Z',
    end_at: '2026-11-02T08:30:00.000Z',
    all_day: false,
    recurrence: { freq: 'WEEKLY', until: '2026-12-21T07:59:59Z', byday: ['MO', 'WE', 'FR'] },
    status: 'confirmed',
    calendar_name: 'Family',
    timezone: 'Europe/Berlin',
    reminders: [{ type: 'notification', minutes_before: 10 }],
    attendees: [
      { email: 'ana@example.com', name: 'Ana Ölund', status: 'accepted' },
      { email: 'bob@example.com', name: 'bob@example.com', status: 'pending' },
    ],
    custom_fields: null,
    created_at: '2026-10-20T10:10:10.000Z',
    updated_at: '2026-10-21T11:12:13.000Z',
  })
  t.match(entries[1].record, {
    title: 'Christmas holidays',
    all_day: true,
    start_at: '2026-12-24T00:00:00.000Z',
    end_at: '2026-12-27T00:00:00.000Z',
    description: null,
    location: "Grandma's house",
    recurrence: null,
  })
  t.same(failed, [])
  t.match(
    entries[2].record,
    {
      title: 'Standup (moved)',
      start_at: '2026-11-30T17:00:00.000Z',
      recurrence: null,
      series_uid: '1q2w3e4r5t6y7u8i9o0p@google.com',
      occurrence_start: '2026-11-30T08:00:00.000Z',
    },
    'a modified occurrence names its series by UID and the start it replaces',
  )
})

t.test('Thunderbird export: DST-aware zones, COUNT, DURATION, email alarm, broken entries', async (t) => {
  const { entries, failed } = parseICalendar(fixture('thunderbird.ics'))
  t.same(
    entries.map((e) => e.index),
    [0, 1],
  )
  t.match(entries[0].record, {
    title: 'Pay rent',
    start_at: '2026-07-15T09:00:00.000Z',
    end_at: '2026-07-15T09:15:00.000Z',
    status: 'tentative',
    calendar_name: 'Bills',
    recurrence: { freq: 'MONTHLY', count: 6, bymonthday: [15] },
  })
  t.same(entries[0].record.reminders, [
    { type: 'notification', minutes_before: 1440 },
    { type: 'email', minutes_before: 90 },
  ])
  t.match(entries[1].record, {
    title: 'Dentist; bring insurance card',
    start_at: '2026-12-03T14:30:00.000Z',
    end_at: '2026-12-03T15:15:00.000Z',
    location: '12 High St, Oxford',
    description: 'Dr. Patel\nCheck-up and cleaning',
    calendar_name: 'Health',
    status: 'cancelled',
    recurrence: { freq: 'YEARLY', interval: 1, bymonth: [12] },
  })
  t.same(
    failed.map((f) => f.index),
    [2, 3],
  )
  t.match(failed[0].error, /BYSETPOS is not supported/)
  t.match(failed[1].error, /no DTSTART/)
})

const tricky: EventRecord = {
  title: 'Review: Q4, budget; "final" \\ notes',
  description: `Agenda:\n1. Numbers, costs; risks\n2. ${'Ž'.repeat(50)} long line to fold`,
  location: 'Room 1, Floor 2',
  start_at: '2026-11-24T15:30:00.000Z',
  end_at: '2026-11-24T17:00:00.000Z',
  all_day: false,
  recurrence: {
    freq: 'WEEKLY',
    interval: 2,
    byday: ['TU', 'TH'],
    until: '2027-03-31T21:59:59Z',
    exdates: ['2026-12-01T15:30:00.000Z', '2026-12-03T15:30:00.000Z'],
  },
  status: 'tentative',
  calendar_name: 'Work, shared',
  timezone: 'Europe/Paris',
  reminders: [
    { type: 'notification', minutes_before: 15 },
    { type: 'email', minutes_before: 1500 },
    { type: 'notification', minutes_before: -5 },
  ],
  attendees: [
    { email: 'a@example.com', name: 'Doe, Jane; PhD', status: 'accepted' },
    { email: 'b@example.com', name: 'Bob', status: 'declined' },
    { email: 'c@example.com', name: 'Cy "C" Lee', status: 'tentative' },
    { email: 'd@example.com', name: null, status: 'pending' },
  ],
  custom_fields: { room_code: 'R-12', budget: 1200.5, flags: { video: true }, list: ['x', 'y'] },
  source: 'thunderbird',
  created_at: '2026-11-01T08:00:00.000Z',
  updated_at: '2026-11-02T09:30:00.000Z',
}

const allDay: EventRecord = {
  ...tricky,
  title: 'Birthday',
  all_day: true,
  start_at: '2026-05-01T00:00:00.000Z',
  end_at: null,
  recurrence: { freq: 'YEARLY', bymonth: [5], bymonthday: [1], count: 10 },
  reminders: [],
  attendees: [],
  custom_fields: null,
  status: 'confirmed',
  calendar_name: 'default',
  timezone: 'UTC',
}

t.test('round trip through iCalendar is lossless and folds at 75 octets', async (t) => {
  const text = serializeICalendar([tricky, allDay], Date.UTC(2026, 10, 22))
  for (const line of text.split('\r\n')) t.ok(Buffer.byteLength(line) <= 75, `within 75 octets: ${line}`)
  t.match(text, 'RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH;UNTIL=20270331T215959Z')
  t.match(text, 'DTSTART;TZID=Europe/Paris:20261124T163000', 'wall-clock time in the event zone')
  t.match(text, 'EXDATE;TZID=Europe/Paris:20261201T163000')
  t.match(text, /BEGIN:VTIMEZONE\r\nTZID:Europe\/Paris\r\n/)
  t.match(text, 'BEGIN:DAYLIGHT\r\nDTSTART:20270328T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200')
  t.match(text, 'DTSTART;VALUE=DATE:20260501')
  t.match(text, 'ATTENDEE;CN="Doe, Jane; PhD";PARTSTAT=ACCEPTED:mailto:a@example.com')
  const { entries, failed } = parseICalendar(text)
  t.same(failed, [])
  t.same(entries[0].record, tricky)
  t.same(entries[1].record, allDay)
})

t.test('fixtures survive parse → serialize → parse', async (t) => {
  for (const name of ['google-calendar.ics', 'thunderbird.ics']) {
    const first = parseICalendar(fixture(name)).entries.map((e) => e.record)
    const again = parseICalendar(serializeICalendar(first)).entries.map((e) => e.record)
    t.same(again, first, name)
  }
})

t.test('hostile input fails per entry, never throws', async (t) => {
  const text = [
    'BEGIN:VCALENDAR',
    'BEGIN:VEVENT',
    'DTSTART:2026-11-24',
    'SUMMARY:bad date',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART;TZID=Mars/Olympus_Mons:20261124T100000',
    'SUMMARY:bad zone',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART:20261124T100000Z',
    'RRULE:FREQ=HOURLY',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART:20261124T100000Z',
    'SUMMARY:ok',
    'BEGIN:VALARM',
    'TRIGGER:soon',
    'END:VALARM',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'DTSTART;TZID=/mozilla.org/20070129_1/Europe/Paris:20261124T100000',
    'SUMMARY:old Thunderbird zone id',
    'END:VEVENT',
  ].join('\r\n')
  const { entries, failed } = parseICalendar(text)
  t.same(
    failed.map((f) => f.index),
    [0, 1, 2, 3],
  )
  t.match(failed[0].error, /invalid date-time/)
  t.match(failed[1].error, /unknown time zone/)
  t.match(failed[2].error, /FREQ must be/)
  t.match(failed[3].error, /invalid duration/)
  t.same(
    entries.map((e) => [e.index, e.record.start_at]),
    [[4, '2026-11-24T09:00:00.000Z']],
  )
})

t.test('all-day dates stay dates both ways, whatever the process TZ', async (t) => {
  const text =
    'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nSUMMARY:Holiday\r\nDTSTART;VALUE=DATE:20261224\r\nDTEND;VALUE=DATE:20261225\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n'
  const [entry] = parseICalendar(text, { zone: 'Asia/Tokyo' }).entries
  t.equal(entry.record.start_at, '2026-12-24T00:00:00.000Z', 'the date itself')
  t.equal(entry.record.end_at, '2026-12-25T00:00:00.000Z')
  const out = serializeICalendar([entry.record])
  t.match(out, 'DTSTART;VALUE=DATE:20261224')
  t.match(out, 'DTEND;VALUE=DATE:20261225')
})

t.test('deeply nested components break their entry instead of the parser', async (t) => {
  const nested = `BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n${Array.from({ length: 50_000 }, (_, i) => `BEGIN:X${i}\r\n`).join('')}END:VEVENT\r\nBEGIN:VEVENT\r\nDTSTART:20261124T100000Z\r\nSUMMARY:after\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`
  // 50,000 open components: a parser that kept them all (or rescanned them per line) would not finish within the test's time-out.
  const { entries, failed } = parseICalendar(nested)
  t.match(failed[0], { index: 0, error: /nested deeper/ })
  t.same(
    entries.map((e) => e.record.title),
    ['after'],
  )
})

t.test('a VTIMEZONE lists a bounded span of observances, whatever years the events carry', async (t) => {
  const base = { ...tricky, recurrence: null, timezone: 'Europe/Paris', reminders: [], attendees: [], custom_fields: null }
  const text = serializeICalendar([
    { ...base, start_at: '0001-01-01T10:00:00.000Z', recurrence: { freq: 'DAILY' } },
    { ...base, start_at: '9999-06-01T10:00:00.000Z' },
  ])
  const starts = [...text.matchAll(/BEGIN:(?:DAYLIGHT|STANDARD)\r\nDTSTART:(\d{4})/g)].map((m) => Number(m[1]))
  t.ok(starts.length > 0 && starts.length <= 2 * 41, `${starts.length} observances`)
  t.ok(
    starts.every((y) => y >= 1970 && y <= 2100),
    'within 1970-2100',
  )
})
