import t from 'tap'
import { parseContentLine } from '../../lib/content-line/lines.js'
import { formatTime, formatTrigger, parseDuration, parseTime, resolveZone } from '../../lib/ical/time.js'
import { vtimezone } from '../../lib/ical/vtimezone.js'

/** iCalendar time values in the zone each names: what a calendar file written anywhere means. */

t.test('DATE, UTC, TZID and floating times become instants in their own zone', async (t) => {
  const at = (line: string, floating?: string) => parseTime(parseContentLine(1, line), floating)
  t.same(at('DTSTART;VALUE=DATE:20261224'), { iso: '2026-12-24T00:00:00.000Z', date: true, zone: null })
  t.same(at('DTSTART:20261124T150000Z'), { iso: '2026-11-24T15:00:00.000Z', date: false, zone: 'UTC' })
  t.same(at('DTSTART;TZID=Europe/Paris:20261124T160000'), { iso: '2026-11-24T15:00:00.000Z', date: false, zone: 'Europe/Paris' })
  t.same(at('DTSTART:20261124T160000', 'Asia/Tokyo'), { iso: '2026-11-24T07:00:00.000Z', date: false, zone: null })
  t.throws(() => at('DTSTART;TZID=Mars/Base:20261124T160000'), /unknown time zone/)
  t.throws(() => at('DTSTART:2026-11-24'), /invalid date-time/)
})

t.test('TZID names: IANA, old Thunderbird prefixes, Windows names', async (t) => {
  t.equal(resolveZone('Europe/Paris'), 'Europe/Paris')
  t.equal(resolveZone('/mozilla.org/20070129_1/Europe/Berlin'), 'Europe/Berlin')
  t.equal(resolveZone('Romance Standard Time'), 'Europe/Paris')
  t.equal(resolveZone('Nowhere Standard Time'), null)
})

t.test('durations and alarm triggers', async (t) => {
  t.equal(parseDuration('-PT15M'), -900)
  t.equal(parseDuration('P1W'), 7 * 86_400)
  t.equal(parseDuration('P1DT2H'), 93_600)
  t.throws(() => parseDuration('P'), /invalid duration/)
  t.throws(() => parseDuration('PT'), /invalid duration/)
  t.equal(formatTrigger(15), '-PT15M')
  t.equal(formatTrigger(1500), '-P1DT1H')
  t.equal(formatTrigger(-60), 'PT1H')
  t.equal(formatTrigger(0), 'PT0S')
})

t.test('writing times: UTC, wall clock in a named zone, dates', async (t) => {
  t.equal(formatTime('2026-11-24T15:00:00.000Z', false), '20261124T150000Z')
  t.equal(formatTime('2026-11-24T15:00:00.000Z', false, 'Europe/Paris'), '20261124T160000')
  t.equal(formatTime('2026-12-24T00:00:00.000Z', true), '20261224')
})

t.test('VTIMEZONE: one observance per offset change, DTSTART in the offset before it', async (t) => {
  const lines = vtimezone('Europe/Paris', 2026, 2026)
  t.same(lines.slice(0, 2), ['BEGIN:VTIMEZONE', 'TZID:Europe/Paris'])
  const text = lines.join('\n')
  t.match(text, 'BEGIN:DAYLIGHT\nDTSTART:20260329T020000\nTZOFFSETFROM:+0100\nTZOFFSETTO:+0200\nEND:DAYLIGHT')
  t.match(text, 'BEGIN:STANDARD\nDTSTART:20261025T030000\nTZOFFSETFROM:+0200\nTZOFFSETTO:+0100\nEND:STANDARD')
  const fixed = vtimezone('Asia/Kolkata', 2026, 2026).join('\n')
  t.match(fixed, 'TZOFFSETFROM:+0530\nTZOFFSETTO:+0530', 'a zone without changes has one standard observance')
})
