import fc from 'fast-check'
import t from 'tap'
import { occurrences, untilMs } from '../../lib/ical/recurrence.js'
import { formatRRule, parseRRule } from '../../lib/ical/rrule.js'

t.test('expansion is bounded and open windows stop a year out', async (t) => {
  const start = Date.parse('2026-01-01T08:00:00Z')
  const daily = occurrences({ freq: 'DAILY' }, start, start, null, 10_000)
  t.equal(daily.length, 367, 'from without to: one year (366 days) ahead, inclusive')
  const capped = occurrences({ freq: 'DAILY' }, start, start, start + 10 * 366 * 86_400_000, 1000)
  t.equal(capped.length, 1000, 'at most `limit` occurrences')
  const far = occurrences(
    { freq: 'DAILY' },
    Date.parse('1900-01-01T08:00:00Z'),
    Date.parse('2026-06-01T00:00:00Z'),
    Date.parse('2026-06-03T00:00:00Z'),
    10_000,
  )
  t.equal(far.length, 2, 'a series begun long ago jumps straight to the window')
  const impossible = occurrences({ freq: 'YEARLY', bymonth: [2], bymonthday: [30] }, start, start, null, 10_000)
  t.same(impossible, [], 'a rule that never matches ends without hanging')
})

t.test('a weekly 09:00 in New York stays 09:00 there across the DST change', async (t) => {
  const start = Date.parse('2026-10-26T13:00:00Z') // Monday 09:00 EDT
  const starts = occurrences({ freq: 'WEEKLY', count: 3 }, start, null, null, 10, 'America/New_York')
  t.same(
    starts.map((ms) => new Date(ms).toISOString()),
    ['2026-10-26T13:00:00.000Z', '2026-11-02T14:00:00.000Z', '2026-11-09T14:00:00.000Z'],
  )
})

t.test('exdates leave starts out and still count toward COUNT; until as a day ends at its end in the zone', async (t) => {
  const start = Date.parse('2026-03-02T08:00:00Z')
  const starts = occurrences({ freq: 'DAILY', count: 4, exdates: ['2026-03-03', '2026-03-04T08:00:00Z'] }, start, null, null, 10)
  t.same(
    starts.map((ms) => new Date(ms).toISOString().slice(0, 10)),
    ['2026-03-02', '2026-03-05'],
  )
  t.equal(new Date(untilMs('2026-12-31', 'Europe/Paris')).toISOString(), '2026-12-31T22:59:59.999Z')
  t.equal(untilMs(undefined), Infinity)
})

t.test('RRULE UNTIL keeps dates and instants apart; a timed series ends in its own zone', async (t) => {
  t.same(parseRRule('FREQ=DAILY;UNTIL=20261231').until, '2026-12-31')
  t.same(parseRRule('FREQ=DAILY;UNTIL=20261231T235959Z').until, '2026-12-31T23:59:59Z', 'a UTC time stays an instant, never a local date')
  t.same(parseRRule('FREQ=DAILY;UNTIL=20261221T120000').until, '2026-12-21T12:00:00', 'a floating time stays floating')
  t.equal(formatRRule({ freq: 'DAILY', until: '2026-12-31' }, true), 'FREQ=DAILY;UNTIL=20261231', 'all-day: a DATE')
  t.equal(
    formatRRule({ freq: 'DAILY', until: '2026-12-31' }, false, 'Europe/Paris'),
    'FREQ=DAILY;UNTIL=20261231T225959Z',
    'timed: UTC, at the end of that day in the series zone (RFC 5545 3.3.10)',
  )
  t.equal(formatRRule({ freq: 'DAILY', until: '2026-12-21T12:00:00' }, false, 'America/New_York'), 'FREQ=DAILY;UNTIL=20261221T170000Z')
  t.equal(formatRRule({ freq: 'DAILY', until: '2026-12-21T08:59:59+01:00' }, false), 'FREQ=DAILY;UNTIL=20261221T075959Z')
})

t.test('RRULE: unknown parts, bad numbers and any text are refused with an Error, never anything else', async (t) => {
  t.throws(() => parseRRule('FREQ=DAILY;BYSETPOS=1'), /not supported/)
  t.throws(() => parseRRule('FREQ=HOURLY'), /FREQ must be/)
  t.throws(() => parseRRule('FREQ=DAILY;COUNT=x', 7), /line 7: RRULE COUNT must be an integer/)
  t.same(parseRRule('FREQ=MONTHLY;BYDAY=1SU;WKST=MO;COUNT=12'), { freq: 'MONTHLY', byday: ['1SU'], count: 12 }, 'WKST dropped')
  fc.assert(
    fc.property(fc.string(), (rule) => {
      try {
        parseRRule(rule)
      } catch (err) {
        if (!(err instanceof Error)) throw err
      }
    }),
    { numRuns: 300 },
  )
})
