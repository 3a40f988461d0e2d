import { DateTime } from 'luxon'
import t from 'tap'
import { instantOfWall, offsetAt } from '../../lib/timezone/offsets.js'
import { dayKey, fromWall, instantOf, isZone, parseDay, toWall, wall } from '../../lib/timezone/wall-clock.js'

/**
 * The offset tables against the tz database read directly (Luxon) in zones with
 * unusual rules: southern DST, 45-minute offsets, Morocco's Ramadan suspensions
 * (two changes a month apart), a zone without DST, and a historical change.
 */
const ZONES = [
  'Europe/Paris',
  'America/New_York',
  'Australia/Sydney',
  'Pacific/Chatham',
  'Africa/Casablanca',
  'Asia/Kolkata',
  'America/Sao_Paulo',
]
const HOUR = 3_600_000

t.test('offsetAt equals the tz database at every sampled instant, 1960-2060', async (t) => {
  for (const zone of ZONES) {
    let wrong = 0
    let checked = 0
    for (let at = Date.UTC(1960, 0, 1); at < Date.UTC(2060, 0, 1); at += 37 * HOUR + 13 * 60_000) {
      checked++
      if (offsetAt(at, zone) !== DateTime.fromMillis(at, { zone }).offset * 60_000) wrong++
    }
    t.equal(wrong, 0, `${zone}: ${checked} instants`)
  }
})

t.test('instantOfWall: existing wall times as the tz database has them; skipped ones move forward by the gap', async (t) => {
  for (const zone of ZONES) {
    let wrong = 0
    for (let wall = Date.UTC(2000, 0, 1, 0, 30); wall < Date.UTC(2040, 0, 1); wall += 29 * HOUR) {
      const instant = instantOfWall(wall, zone)
      // Round trip: the instant shows that wall time, unless the time was skipped (then it shows a later one).
      const shown = instant + offsetAt(instant, zone)
      if (shown !== wall && !(shown > wall && shown - wall <= 2 * HOUR)) wrong++
    }
    t.equal(wrong, 0, zone)
  }
  // Paris, 29 March 2026: 02:30 does not exist (02:00 → 03:00); 25 October 2026: 02:30 happens twice.
  t.equal(new Date(instantOfWall(Date.UTC(2026, 2, 29, 2, 30), 'Europe/Paris')).toISOString(), '2026-03-29T01:30:00.000Z', '03:30 CEST')
  t.equal(
    new Date(instantOfWall(Date.UTC(2026, 9, 25, 2, 30), 'Europe/Paris')).toISOString(),
    '2026-10-25T00:30:00.000Z',
    'the first 02:30',
  )
})

t.test('wall-clock arithmetic: a zone names its wall clock, the process TZ never enters', async (t) => {
  const noon = Date.parse('2026-07-01T10:00:00Z')
  t.equal(toWall(noon, 'Europe/Paris').toISOString(), '2026-07-01T12:00:00.000Z', 'floating: UTC fields are the wall clock')
  t.equal(new Date(fromWall(wall(2026, 6, 1, 12), 'Europe/Paris')).toISOString(), '2026-07-01T10:00:00.000Z')
  t.equal(wall(42, 0, 1).getUTCFullYear(), 42, 'years below 100 stay themselves')
  t.equal(parseDay('2026-02-30'), null, 'a day that does not exist')
  t.equal(parseDay('2026-02-28')?.toISOString(), '2026-02-28T00:00:00.000Z')
  t.equal(new Date(instantOf('2026-07-01T12:00', 'Europe/Paris')).toISOString(), '2026-07-01T10:00:00.000Z', 'no offset: wall time')
  t.equal(new Date(instantOf('2026-07-01T12:00Z', 'Europe/Paris')).toISOString(), '2026-07-01T12:00:00.000Z', 'an offset as written')
  t.equal(dayKey(Date.parse('2026-07-01T23:30:00Z'), 'Asia/Tokyo'), '2026-07-02')
  t.ok(isZone('UTC') && isZone('Pacific/Chatham'))
  t.notOk(isZone('Mars/Olympus'))
})
