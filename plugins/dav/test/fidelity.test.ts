import { readFileSync } from 'node:fs'
import t from 'tap'
import { sourcePath } from '../../../test/paths.js'
import { type Component, parseComponents } from '../../../lib/content-line/components.js'
import { type ContentLine, unescapeText } from '../../../lib/content-line/lines.js'
import { davBench } from './dav-app.js'

/**
 * Round-trip fidelity of objects as iOS, Thunderbird and DAVx⁵ write them, compared property by
 * property: given back exactly while the record is unchanged; after a change on the JSON side,
 * every property Hearth has no field for comes back exactly as written, every property it maps
 * comes back with the same value, and only the property changed differs.
 */
const fixture = (name: string) => readFileSync(sourcePath(import.meta.url, `fixtures/${name}`), 'utf8')

/** Written by Hearth anew on every change (stamps, product id, Hearth's own markers, the zone table). */
const REGENERATED = new Set([
  'PRODID',
  'REV',
  'DTSTAMP',
  'LAST-MODIFIED',
  'CREATED',
  'CALSCALE',
  'VERSION',
  'CATEGORIES',
  'X-HEARTH-CALENDAR',
  'X-HEARTH-SOURCE',
])
/** Mapped to Hearth fields: compared by value (Hearth writes its own parameters). */
const BY_VALUE = new Set([
  'FN',
  'N',
  'ORG',
  'TITLE',
  'EMAIL',
  'TEL',
  'ADR',
  'NOTE',
  'BDAY',
  'NICKNAME',
  'URL',
  'SUMMARY',
  'LOCATION',
  'DESCRIPTION',
  'STATUS',
  'RECURRENCE-ID',
  'TRIGGER',
  'RRULE',
])

interface Flat {
  path: string
  line: ContentLine
}

/** Every property of every component, with its component path (VCALENDAR/VEVENT[uid+rid]/VALARM). */
function flatten(text: string): Flat[] {
  const out: Flat[] = []
  const walk = (c: Component, path: string) => {
    const rid = c.properties.find((p) => p.name === 'RECURRENCE-ID')?.value ?? ''
    const here = `${path}/${c.name}${rid ? `@${rid}` : ''}`
    if (c.name === 'VTIMEZONE') return // rebuilt from the tz database; checked through the times below
    for (const line of c.properties) out.push({ path: here, line })
    c.components.forEach((child) => walk(child, here))
  }
  parseComponents(text, 1).roots.forEach((r) => walk(r, ''))
  return out
}

const exact = (l: ContentLine) =>
  `${l.group ? `${l.group.toLowerCase()}.` : ''}${l.name};${[...l.params]
    .map(([k, v]) => `${k}=${v.join(',')}`)
    .sort()
    .join(';')}:${l.value}`
const byValue = (l: ContentLine) => `${l.name}:${normalise(l)}`
function normalise(l: ContentLine): string {
  const v = unescapeText(l.value).trim()
  if (l.name === 'TEL') return v.replace(/^tel:/i, '')
  if (l.name === 'BDAY') return v.replace(/-/g, '')
  if (l.name === 'TRIGGER')
    return v.replace(/^-P(T?)(\d+)([DHM])$/, (_m, _t, n, u) => `${Number(n) * (u === 'D' ? 1440 : u === 'H' ? 60 : 1)}m`)
  if (l.name === 'N' || l.name === 'ORG') return v.replace(/;+$/, '')
  if (l.name === 'RRULE') return l.value.split(';').sort().join(';')
  return v
}

/** What of `original` is missing from `answer`, property by property. */
function missing(original: string, answer: string, changed: Set<string>): string[] {
  const got = flatten(answer)
  const exacts = new Set(got.map((f) => `${f.path} ${exact(f.line)}`))
  const values = new Set(got.map((f) => `${f.path} ${byValue(f.line)}`))
  const lost: string[] = []
  for (const f of flatten(original)) {
    if (REGENERATED.has(f.line.name) || changed.has(f.line.name)) continue
    if (f.path.endsWith('/VALARM') && f.line.name === 'DESCRIPTION') continue // Hearth titles alarms with the event
    const ok = BY_VALUE.has(f.line.name) ? values.has(`${f.path} ${byValue(f.line)}`) : exacts.has(`${f.path} ${exact(f.line)}`)
    if (!ok) lost.push(`${f.path} ${exact(f.line)}`)
  }
  return lost
}

const cases = [
  {
    file: 'ios-contact.vcf',
    url: '/dav/addressbooks/contacts/7A9E2B6C.vcf',
    resource: 'contacts',
    patch: { job_title: 'Distinguished Engineer' },
    changed: ['TITLE'],
  },
  {
    file: 'davx5-contact.vcf',
    url: '/dav/addressbooks/contacts/4f6b3c2a.vcf',
    resource: 'contacts',
    patch: { company: 'Institut du Radium' },
    changed: ['ORG'],
  },
  {
    file: 'thunderbird-event.ics',
    url: '/dav/calendars/default/b6f1c0de.ics',
    resource: 'events',
    patch: { location: 'The Bird and Baby' },
    changed: ['LOCATION'],
  },
  {
    file: 'ios-event.ics',
    url: '/dav/calendars/default/3E1B0F5A.ics',
    resource: 'events',
    patch: { title: 'Brunch with Sam and Alex' },
    changed: ['SUMMARY'],
  },
  {
    file: 'davx5-event.ics',
    url: '/dav/calendars/default/e2a9f1c4.ics',
    resource: 'events',
    patch: { description: 'Pack the tent and the stove' },
    changed: ['DESCRIPTION'],
  },
  // Tasks (fixtures/README.md names where each shape comes from), edited on the JSON side.
  {
    file: 'apple-reminders-todo.ics',
    url: '/dav/calendars/tasks-default/5C0F3E1A.ics',
    resource: 'tasks',
    patch: { title: 'Put the bins and the recycling out' },
    changed: ['SUMMARY'],
  },
  {
    file: 'thunderbird-todo.ics',
    url: '/dav/calendars/tasks-default/3f9c1a52.ics',
    resource: 'tasks',
    patch: { title: 'Renew the car and home insurance' },
    changed: ['SUMMARY'],
  },
  {
    file: 'tasks-org-todo.ics',
    url: '/dav/calendars/tasks-default/6021937746150083322.ics',
    resource: 'tasks',
    action: 'complete',
    shows: 'STATUS:COMPLETED',
    changed: ['STATUS', 'COMPLETED'],
  },
] as Array<{ file: string; url: string; resource: string; patch?: object; action?: string; shows?: string; changed: string[] }>

for (const c of cases) {
  t.test(`${c.file}: given back property by property`, async (t) => {
    const b = await davBench(t)
    const text = fixture(c.file)
    const type = c.file.endsWith('.vcf') ? 'text/vcard' : 'text/calendar'
    const put = await b.dav('PUT', c.url, text, { 'content-type': type, 'if-none-match': '*' })
    t.equal(put.status, 201, put.body)

    const unchanged = await b.dav('GET', c.url)
    t.equal(unchanged.headers.etag, put.headers.etag)
    t.same(
      flatten(unchanged.body).map((f) => exact(f.line)),
      flatten(text).map((f) => exact(f.line)),
      'unchanged: every property as written',
    )

    // A change on the JSON side: the record's main (series) entry.
    const list = (await b.json('GET', `/api/v1/${c.resource}?limit=100`)).body.data.filter(
      (r: { recurrence_id?: string | null }) => !r.recurrence_id,
    )
    t.equal(list.length, 1)
    const edit = c.action
      ? await b.json('POST', `/api/v1/${c.resource}/${list[0].id}/${c.action}`)
      : await b.json('PATCH', `/api/v1/${c.resource}/${list[0].id}`, c.patch)
    t.equal(edit.status, 200)
    const after = await b.dav('GET', c.url)
    t.not(after.headers.etag, put.headers.etag, 'the ETag follows the change')
    t.same(missing(text, after.body, new Set(c.changed)), [], 'after a JSON-side change nothing the client wrote is lost')
    const newValue = c.shows ?? String(Object.values(c.patch ?? {})[0]).replace(/,/g, '\\,')
    t.match(after.body.replace(/\r\n /g, ''), newValue, 'and the change is there')
  })
}

t.test('the Thunderbird series keeps its moved occurrence, times and alarm in the JSON API', async (t) => {
  const b = await davBench(t)
  await b.dav('PUT', '/dav/calendars/default/tb.ics', fixture('thunderbird-event.ics'), { 'content-type': 'text/calendar' })
  const events = (await b.json('GET', '/api/v1/events?limit=100')).body.data
  const series = events.find((e: { recurrence_id: string | null }) => !e.recurrence_id)
  const moved = events.find((e: { recurrence_id: string | null }) => e.recurrence_id === series.id)
  t.equal(series.start_at, '2026-07-15T18:00:00.000Z', '19:00 in London (BST)')
  t.equal(series.timezone, 'Europe/London')
  t.same(series.recurrence, { freq: 'MONTHLY', count: 6, bymonthday: [15] })
  t.same(series.reminders, [{ type: 'notification', minutes_before: 30 }])
  t.same(
    series.attendees.map((a: { email: string; status: string }) => [a.email, a.status]),
    [
      ['ann@example.test', 'accepted'],
      ['bob@example.test', 'pending'],
    ],
  )
  t.equal(moved.occurrence_start, '2026-08-15T18:00:00.000Z')
  t.equal(moved.start_at, '2026-08-15T19:00:00.000Z')
  const davx5 = await b.dav('PUT', '/dav/calendars/default/d.ics', fixture('davx5-event.ics'), { 'content-type': 'text/calendar' })
  t.equal(davx5.status, 201)
  const holiday = (await b.json('GET', '/api/v1/events?limit=100')).body.data.find((e: { title: string }) => e.title === 'Family holiday')
  t.equal(holiday.all_day, true)
  t.equal(holiday.start_at.slice(0, 10), '2026-08-01')
})
