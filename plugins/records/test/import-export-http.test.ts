import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { unzipSync, zipSync } from 'fflate'
import t from 'tap'
import { addUser, auth, build, owner, type TestApp } from '../../../test/helper.js'
import { upload } from './records-app.js'
import { sourcePath } from '../../../test/paths.js'

const fixture = (name: string) => readFileSync(sourcePath(import.meta.url, `fixtures/${name}`))

async function importFile(
  app: TestApp,
  token: string,
  resource: string,
  filename: string,
  content: Buffer | string,
  extra: Record<string, string> = {},
) {
  const body = upload(filename, content)
  const res = await app.inject({
    method: 'POST',
    url: `/api/v1/${resource}/import`,
    payload: body.payload,
    headers: { ...auth(token), ...body.headers, ...extra },
  })
  return { status: res.statusCode, body: res.json() }
}

async function records(app: TestApp, token: string, resource: string, ids: string[]) {
  return Promise.all(
    ids.map(async (id) => (await app.inject({ method: 'GET', url: `/api/v1/${resource}/${id}`, headers: auth(token) })).json().data),
  )
}

/**
 * Records compared across accounts: ids differ, and so may what the format
 * does not carry. vCard REV and iCalendar stamps hold whole seconds.
 */
const comparable = (list: Array<Record<string, unknown>>, drop: string[] = []) =>
  list.map((r) =>
    Object.fromEntries(
      Object.entries(r)
        // A copy is a new record: its own id, owner, and its own version (ETag) history.
        .filter(([k]) => !['id', 'owner_id', 'etag', ...drop].includes(k))
        .map(([k, v]) => [k, k.endsWith('_at') && typeof v === 'string' ? v.replace(/\.\d{3}Z$/, 'Z') : v]),
    ),
  )

async function exportFile(app: TestApp, token: string, url: string) {
  const res = await app.inject({ method: 'GET', url, headers: auth(token) })
  return res
}

t.test('contacts: Apple and Nextcloud vCards import, export as 4.0 and 3.0, re-import equal', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const other = await addUser(app, o.token)
  const apple = await importFile(app, o.token, 'contacts', 'Apple.vcf', fixture('apple-contacts-3.0.vcf'))
  t.equal(apple.status, 200)
  t.same(apple.body.data.failed, [])
  t.equal(apple.body.data.imported, 2)
  const next = await importFile(app, o.token, 'contacts', 'nc.vcf', fixture('nextcloud-4.0.vcf'), { 'x-svc-source': 'nextcloud' })
  t.equal(next.body.data.imported, 2)

  const list = (await app.inject({ method: 'GET', url: '/api/v1/contacts?search=appleseed', headers: auth(o.token) })).json()
  t.equal(list.meta.total, 1, 'imported contacts are searchable')
  t.match(list.data[0], {
    display_name: 'Johnny Appleseed',
    company: 'Apple Inc.',
    source: 'import',
    emails: [{ address: 'johnny@apple.example', label: 'work', primary: true }, {}, {}],
    birthday: '1980-04-01',
    groups: ['Work', 'Friends'],
    custom_fields: { department: 'Engineering' },
  })
  const ana = await records(app, o.token, 'contacts', next.body.data.ids.slice(0, 1))
  t.match(ana[0], {
    display_name: 'Ana María Ölund-Schmidt',
    source: 'nextcloud',
    updated_at: '2026-11-01T12:00:00.000Z',
    groups: ['Kunden', 'VIP', 'Team, Berlin'],
  })

  const originals = await records(app, o.token, 'contacts', [...apple.body.data.ids, ...next.body.data.ids])
  for (const version of ['4.0', '3.0']) {
    const res = await exportFile(app, o.token, `/api/v1/contacts/export?format=vcard&version=${version}`)
    t.equal(res.statusCode, 200)
    t.equal(res.headers['content-type'], 'text/vcard; charset=utf-8')
    t.equal(res.headers['content-disposition'], 'attachment; filename="hearth-contacts.vcf"')
    t.equal(res.body.match(new RegExp(`VERSION:${version.replace('.', '\\.')}`, 'g'))?.length, 4)
    const again = await importFile(app, other.token, 'contacts', 'export.vcf', res.rawPayload)
    t.same(again.body.data.failed, [])
    // vCard has no creation time: everything else comes back as it was.
    t.same(
      comparable(await records(app, other.token, 'contacts', again.body.data.ids), ['created_at']),
      comparable(originals, ['created_at']),
      `via ${version}`,
    )
  }
  const mine = (await app.inject({ method: 'GET', url: '/api/v1/contacts/export', headers: auth(other.token) })).body
  t.notMatch(mine, 'nextcloud@', 'sanity')
  t.equal(mine.match(/BEGIN:VCARD/g)?.length, 8, 'an export holds only the caller’s contacts')
})

t.test('contacts: broken cards are reported by index and line, good ones imported, nothing else written', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const res = await importFile(app, o.token, 'contacts', 'broken.vcf', fixture('broken.vcf'))
  t.equal(res.status, 200)
  t.equal(res.body.data.imported, 2)
  t.same(
    res.body.data.failed.map((f: { index: number; line: number }) => [f.index, f.line]),
    [
      [1, 7],
      [2, 11],
      [3, 16],
    ],
  )
  const list = (await app.inject({ method: 'GET', url: '/api/v1/contacts', headers: auth(o.token) })).json()
  t.same(
    list.data.map((c: { display_name: string }) => c.display_name),
    ['Good One', 'Good Two'],
  )
})

t.test('events: Google and Thunderbird exports import; export → re-import is equal', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const other = await addUser(app, o.token)
  const google = await importFile(app, o.token, 'events', 'basic.ics', fixture('google-calendar.ics'))
  t.equal(google.body.data.imported, 2)
  t.match(google.body.data.failed, [{ index: 2, line: 66, error: /RECURRENCE-ID/ }])
  const tb = await importFile(app, o.token, 'events', 'calendar.ics', fixture('thunderbird.ics'))
  t.equal(tb.body.data.imported, 2)
  t.same(
    tb.body.data.failed.map((f: { index: number }) => f.index),
    [2, 3],
  )

  const [standup] = await records(app, o.token, 'events', google.body.data.ids)
  t.match(standup, {
    title: 'Standup',
    start_at: '2026-11-02T08:00:00.000Z',
    recurrence: { freq: 'WEEKLY', byday: ['MO', 'WE', 'FR'], until: '2026-12-21T07:59:59Z' },
    calendar_name: 'Family',
    reminders: [{ type: 'notification', minutes_before: 10 }],
    attendees: [{ email: 'ana@example.com', name: 'Ana Ölund', status: 'accepted' }, { status: 'pending' }],
    created_at: '2026-10-20T10:10:10.000Z',
  })
  // The recurring standup shows up on a Wednesday inside the range.
  const week = (
    await app.inject({ method: 'GET', url: '/api/v1/events?from=2026-11-11T00:00:00Z&to=2026-11-11T23:59:59Z', headers: auth(o.token) })
  ).json()
  t.ok(
    week.data.some((e: { title: string }) => e.title === 'Standup'),
    'occurrences of the imported series are listed',
  )

  const res = await exportFile(app, o.token, '/api/v1/events/export?format=ics')
  t.equal(res.headers['content-type'], 'text/calendar; charset=utf-8')
  t.equal(res.headers['content-disposition'], 'attachment; filename="hearth-events.ics"')
  const again = await importFile(app, other.token, 'events', 'hearth-events.ics', res.rawPayload)
  t.same(again.body.data.failed, [])
  const originals = await records(app, o.token, 'events', [...google.body.data.ids, ...tb.body.data.ids])
  t.same(comparable(await records(app, other.token, 'events', again.body.data.ids)), comparable(originals))
})

t.test('events: entries the records engine refuses are reported with their line', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const ics = [
    'BEGIN:VCALENDAR',
    'BEGIN:VEVENT',
    'SUMMARY:ok',
    'DTSTART:20261124T100000Z',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'SUMMARY:ends before it starts',
    'DTSTART:20261124T100000Z',
    'DTEND:20261124T090000Z',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'SUMMARY:weekly ordinal',
    'DTSTART:20261124T100000Z',
    'RRULE:FREQ=WEEKLY;BYDAY=1MO',
    'END:VEVENT',
    'END:VCALENDAR',
  ].join('\r\n')
  const res = await importFile(app, o.token, 'events', 'x.ics', ics)
  t.equal(res.body.data.imported, 1)
  t.match(res.body.data.failed, [
    { index: 1, line: 6, details: { field: 'end_at' } },
    { index: 2, line: 11, details: { field: 'recurrence.byday' } },
  ])
  const list = (await app.inject({ method: 'GET', url: '/api/v1/events', headers: auth(o.token) })).json()
  t.equal(list.meta.total, 1, 'only the good entry was written')
})

const vault = sourcePath(import.meta.url, 'fixtures/obsidian-vault')
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? walk(join(dir, name)) : [join(dir, name)]))

t.test('notes: a Markdown vault imports; export zip → re-import is equal, archived and timestamps included', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const other = await addUser(app, o.token)
  const zip = zipSync(Object.fromEntries(walk(vault).map((f) => [relative(vault, f), readFileSync(f)])))
  const res = await importFile(app, o.token, 'notes', 'vault.zip', Buffer.from(zip))
  t.equal(res.body.data.imported, 4)
  t.match(res.body.data.failed, [{ file: 'Broken.md', error: /unterminated/ }])

  const created = await app.inject({
    method: 'POST',
    url: '/api/v1/notes',
    headers: auth(o.token),
    payload: { title: 'Packing: list, "final"', content: '- socks\n- tent', tags: ['trip'], pinned: true, custom_fields: { days: 3 } },
  })
  const id = created.json().data.id
  await app.inject({ method: 'POST', url: `/api/v1/notes/${id}/archive`, headers: auth(o.token) })

  const exported = await exportFile(app, o.token, '/api/v1/notes/export?format=markdown')
  t.equal(exported.headers['content-type'], 'application/zip')
  t.equal(exported.headers['content-disposition'], 'attachment; filename="hearth-notes.zip"')
  t.equal(Object.keys(unzipSync(new Uint8Array(exported.rawPayload))).length, 5, 'archived notes are exported too')

  const again = await importFile(app, other.token, 'notes', 'hearth-notes.zip', exported.rawPayload)
  t.same(again.body.data.failed, [])
  const originals = await records(app, o.token, 'notes', [...res.body.data.ids, id])
  const copies = await records(app, other.token, 'notes', again.body.data.ids)
  const byTitle = (list: Array<Record<string, unknown>>) => comparable(list).sort((a, b) => String(a.title).localeCompare(String(b.title)))
  t.same(byTitle(copies), byTitle(originals))
  t.match(
    copies.find((n) => n.title === 'Packing: list, "final"'),
    { archived: true, pinned: true, tags: ['trip'], custom_fields: { days: 3 }, source: 'local' },
  )

  const single = await importFile(app, o.token, 'notes', 'Shopping.md', '# Shopping\n\n- milk\n')
  t.equal(single.body.data.imported, 1)
  t.match((await records(app, o.token, 'notes', single.body.data.ids))[0], { title: 'Shopping', content: '# Shopping\n\n- milk\n' })
})

t.test('bad uploads get clear 4xx answers', async (t) => {
  const app = await build(t)
  const o = await owner(app)
  const json = await app.inject({ method: 'POST', url: '/api/v1/contacts/import', headers: auth(o.token), payload: { file: 'x' } })
  t.equal(json.statusCode, 415)
  t.equal(json.json().error.code, 'UNSUPPORTED_MEDIA_TYPE')

  const noFile = await app.inject({
    method: 'POST',
    url: '/api/v1/contacts/import',
    headers: { ...auth(o.token), 'content-type': 'multipart/form-data; boundary=b' },
    payload: '--b\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--b--\r\n',
  })
  t.equal(noFile.statusCode, 400)
  t.same(noFile.json().error.details, { field: 'file', constraint: 'required' })

  for (const [resource, name, content] of [
    ['contacts', 'x.vcf', 'just some text'],
    ['events', 'x.ics', 'BEGIN:VCARD\r\nFN:x\r\nEND:VCARD\r\n'],
    ['notes', 'x.zip', 'not a zip'],
    ['contacts', 'latin1.vcf', Buffer.from([0x42, 0x45, 0xe9])],
  ] as const) {
    const res = await importFile(app, o.token, resource, name, content)
    t.equal(res.status, 400, `${resource} ${name}`)
    t.match(res.body.error, { code: 'VALIDATION_ERROR', details: { field: 'file', constraint: 'format' } })
  }

  const badFormat = await app.inject({ method: 'GET', url: '/api/v1/events/export?format=xml', headers: auth(o.token) })
  t.equal(badFormat.statusCode, 400)
  t.equal(badFormat.json().error.code, 'INVALID_QUERY')
  const badVersion = await app.inject({ method: 'GET', url: '/api/v1/contacts/export?version=2.1', headers: auth(o.token) })
  t.equal(badVersion.json().error.code, 'INVALID_QUERY')
  const anonymous = await app.inject({ method: 'GET', url: '/api/v1/notes/export' })
  t.equal(anonymous.statusCode, 401)
})
