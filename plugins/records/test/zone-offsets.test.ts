import { DateTime } from 'luxon'
import t from 'tap'
import { instantOfWall, offsetAt } from '../resources/zone-offsets.js'

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
