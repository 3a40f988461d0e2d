import { readFileSync, existsSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { addUser, auth, build, owner, type TestApp } from '../../../test/helper.js'
import { makeCollections, startRadicale, vcalendar, vcard, type Radicale } from './radicale.js'

/** JSON answers, read loosely: the assertions check their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

/** Connectors against a real Radicale: create, change and delete remotely → reflected, never duplicated. */
const api = (app: TestApp, token: string) => async (method: string, url: string, payload?: unknown) => {
  const res = await app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers: auth(token), ...(payload ? { payload } : {}) })
  return { status: res.statusCode, body: (res.body ? res.json() : {}) as Json }
}

/** Two contacts on the server: ada.vcf and alan.vcf. */
async function putAdaAndAlan(radicale: Radicale) {
  const type = { 'content-type': 'text/vcard' }
  await radicale.request('PUT', '/alice/contacts/ada.vcf', vcard('ada-1', 'Ada Lovelace', 'ada@example.test'), type)
  await radicale.request('PUT', '/alice/contacts/alan.vcf', vcard('alan-1', 'Alan Turing', 'alan@example.test'), type)
}

/** A create body for a connector with the test server's credentials. */
const connectorOn = (radicale: Radicale, kind: string, label: string, url: string, extra: Record<string, unknown> = {}) => ({
  kind,
  label,
  url,
  username: radicale.user,
  password: radicale.password,
  ...extra,
})

const contactsOf = async (call: ReturnType<typeof api>) => (await call('GET', '/contacts?limit=100&sort=display_name')).body.data

t.test('carddav: discovery from the server root, updates and remote deletions', async (t) => {
  const radicale = await startRadicale(t)
  await makeCollections(radicale)
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const call = api(app, o.token)
  await putAdaAndAlan(radicale)

  const created = await call('POST', '/sync/connectors', connectorOn(radicale, 'carddav', 'Radicale', `${radicale.base}/`))
  t.equal(created.status, 201, JSON.stringify(created.body))
  const connector = created.body.data
  t.equal(connector.has_password, true)
  t.notOk('password' in connector, 'the password is never returned')
  t.notOk(JSON.stringify(created.body).includes(radicale.password))

  const first = await call('POST', `/sync/connectors/${connector.id}/run`)
  t.equal(first.status, 200, JSON.stringify(first.body))
  t.match(first.body.data, { status: 'ok', created: 2, updated: 0, deleted: 0, error: null })
  let contacts = await contactsOf(call)
  t.same(
    contacts.map((c: Json) => [c.display_name, c.source, c.emails[0].address]),
    [
      ['Ada Lovelace', 'carddav', 'ada@example.test'],
      ['Alan Turing', 'carddav', 'alan@example.test'],
    ],
  )

  // Nothing changed remotely: nothing written, nothing duplicated.
  const second = await call('POST', `/sync/connectors/${connector.id}/run`)
  t.match(second.body.data, { status: 'ok', created: 0, updated: 0, deleted: 0 })
  t.equal((await contactsOf(call)).length, 2)

  // Change one, delete one, add one on the server.
  const adaId = contacts[0].id
  await radicale.request('PUT', '/alice/contacts/ada.vcf', vcard('ada-1', 'Ada King', 'ada@newmail.test'), { 'content-type': 'text/vcard' })
  await radicale.request('DELETE', '/alice/contacts/alan.vcf')
  await radicale.request('PUT', '/alice/contacts/grace.vcf', vcard('grace-1', 'Grace Hopper', 'grace@example.test'), {
    'content-type': 'text/vcard',
  })
  const third = await call('POST', `/sync/connectors/${connector.id}/run`)
  t.match(third.body.data, { status: 'ok', created: 1, updated: 1, deleted: 1 })
  contacts = await contactsOf(call)
  t.same(
    contacts.map((c: Json) => [c.display_name, c.emails[0].address]),
    [
      ['Ada King', 'ada@newmail.test'],
      ['Grace Hopper', 'grace@example.test'],
    ],
  )
  t.equal(contacts[0].id, adaId, 'the change updated the same record')
  const trash = await call('GET', '/contacts?only_deleted=true')
  t.same(
    trash.body.data.map((c: Json) => c.display_name),
    ['Alan Turing'],
    'a remote deletion moves the record to the trash',
  )

  // A record deleted here comes back as a new one when the remote object changes again.
  const log = await call('GET', `/sync/connectors/${connector.id}/runs`)
  t.equal(log.status, 200)
  t.equal(log.body.meta.total, 3)
  t.same(
    log.body.data.map((r: Json) => [r.trigger, r.status, r.created]),
    [
      ['manual', 'ok', 1],
      ['manual', 'ok', 0],
      ['manual', 'ok', 2],
    ],
  )
  const listed = await call('GET', '/sync/connectors')
  t.equal(listed.body.meta.total, 1)
  t.equal(listed.body.data[0].last_run.id, log.body.data[0].id)

  // The password is nowhere in the database files in clear.
  for (const file of ['hearth.db', 'hearth.db-wal']) {
    const path = join(app.dataDir, file)
    if (existsSync(path)) t.notOk(readFileSync(path).includes(radicale.password), `${file} does not hold the password`)
  }

  // A wrong password: the run fails with a message, and the message holds no credential.
  const wrong = await call('POST', '/sync/connectors', {
    kind: 'carddav',
    label: 'Wrong',
    url: `${radicale.base}/`,
    username: radicale.user,
    password: 'not-the-password',
  })
  const failed = await call('POST', `/sync/connectors/${wrong.body.data.id}/run`)
  t.equal(failed.status, 200)
  t.equal(failed.body.data.status, 'failed')
  t.match(failed.body.data.error, /401/)
  t.notOk(failed.body.data.error.includes('not-the-password'))

  const metrics = await app.inject({ method: 'GET', url: '/metrics' })
  t.match(metrics.body, /hearth_sync_runs_total\{kind="carddav",status="ok"\} 3/)
  t.match(metrics.body, /hearth_sync_runs_total\{kind="carddav",status="failed"\} 1/)

  // Delete the connector: its links and log go, the records stay.
  t.equal((await call('DELETE', `/sync/connectors/${connector.id}`)).status, 204)
  t.equal((await call('GET', `/sync/connectors/${connector.id}/runs`)).status, 404)
  t.equal((await contactsOf(call)).length, 2)
})

t.test('caldav: a calendar URL, recurring events with an override, changes reflected', async (t) => {
  const radicale = await startRadicale(t)
  await makeCollections(radicale)
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const call = api(app, o.token)
  const weekly = (summary: string, overrideSummary: string) =>
    vcalendar(
      'BEGIN:VEVENT',
      'UID:standup-1',
      'DTSTAMP:20270101T000000Z',
      'DTSTART:20270104T090000Z',
      'DTEND:20270104T091500Z',
      `SUMMARY:${summary}`,
      'RRULE:FREQ=WEEKLY;COUNT=4',
      'END:VEVENT',
      'BEGIN:VEVENT',
      'UID:standup-1',
      'DTSTAMP:20270101T000000Z',
      'RECURRENCE-ID:20270111T090000Z',
      'DTSTART:20270111T100000Z',
      'DTEND:20270111T101500Z',
      `SUMMARY:${overrideSummary}`,
      'END:VEVENT',
    )
  const dinner = vcalendar(
    'BEGIN:VEVENT',
    'UID:dinner-1',
    'DTSTAMP:20270101T000000Z',
    'DTSTART:20270106T190000Z',
    'DTEND:20270106T210000Z',
    'SUMMARY:Dinner',
    'LOCATION:Home',
    'END:VEVENT',
  )
  await radicale.request('PUT', '/alice/calendar/standup.ics', weekly('Standup', 'Standup (moved)'), { 'content-type': 'text/calendar' })
  await radicale.request('PUT', '/alice/calendar/dinner.ics', dinner, { 'content-type': 'text/calendar' })

  const created = await call('POST', '/sync/connectors', connectorOn(radicale, 'caldav', 'Calendar', `${radicale.base}/alice/calendar/`))
  t.equal(created.status, 201, JSON.stringify(created.body))
  const id = created.body.data.id
  const first = await call('POST', `/sync/connectors/${id}/run`)
  t.match(first.body.data, { status: 'ok', created: 2, failed: 0 })

  const windowed = async () =>
    (await call('GET', '/events?from=2027-01-01&to=2027-02-28&limit=50')).body.data.map((e: Json) => [e.title, e.start_at, e.source])
  t.same(await windowed(), [
    ['Standup', '2027-01-04T09:00:00.000Z', 'caldav'],
    ['Dinner', '2027-01-06T19:00:00.000Z', 'caldav'],
    ['Standup (moved)', '2027-01-11T10:00:00.000Z', 'caldav'],
    ['Standup', '2027-01-18T09:00:00.000Z', 'caldav'],
    ['Standup', '2027-01-25T09:00:00.000Z', 'caldav'],
  ])

  // Rename the series and its override, delete the dinner.
  await radicale.request('PUT', '/alice/calendar/standup.ics', weekly('Daily sync', 'Daily sync (moved)'), {
    'content-type': 'text/calendar',
  })
  await radicale.request('DELETE', '/alice/calendar/dinner.ics')
  const second = await call('POST', `/sync/connectors/${id}/run`)
  t.match(second.body.data, { status: 'ok', created: 0, updated: 1, deleted: 1 })
  t.same(await windowed(), [
    ['Daily sync', '2027-01-04T09:00:00.000Z', 'caldav'],
    ['Daily sync (moved)', '2027-01-11T10:00:00.000Z', 'caldav'],
    ['Daily sync', '2027-01-18T09:00:00.000Z', 'caldav'],
    ['Daily sync', '2027-01-25T09:00:00.000Z', 'caldav'],
  ])
  // An expired sync-token (the server answers 403 valid-sync-token): a full listing instead, nothing duplicated.
  const db = new Database(join(app.dataDir, 'hearth.db'))
  db.prepare("UPDATE sync_collections SET sync_token = 'http://radicale.org/ns/sync/expired'").run()
  db.close()
  const afterExpiry = await call('POST', `/sync/connectors/${id}/run`)
  t.match(afterExpiry.body.data, { status: 'ok', created: 0, deleted: 0, unchanged: 1 })
  const stored = (await call('GET', '/events?limit=50')).body
  t.same(
    stored.data.map((e: Json) => e.calendar_name),
    ['Family', 'Family'],
    "events that name no calendar take the collection's displayname",
  )

  // A URL that is no DAV resource: discovery goes through /.well-known/caldav (Radicale redirects it to /).
  const viaWellKnown = await call(
    'POST',
    '/sync/connectors',
    connectorOn(radicale, 'caldav', 'Well-known', `${radicale.base}/nothing-here/`),
  )
  const found = await call('POST', `/sync/connectors/${viaWellKnown.body.data.id}/run`)
  t.match(found.body.data, { status: 'ok', created: 1, error: null }, 'the one calendar object left, found by discovery')
  t.equal(stored.meta.total, 2, 'one series and its override: no duplicates')
})

t.test('who may point a connector where (SSRF rule)', async (t) => {
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const user = await addUser(app, o.token)
  const call = api(app, user.token)
  for (const url of [
    'http://127.0.0.1:5232/',
    'http://10.0.0.7/dav/',
    'http://[::1]/',
    'http://169.254.169.254/latest/',
    'http://localhost/',
    // IPv4 inside IPv6: compatible (::a.b.c.d), mapped, NAT64 and 6to4 forms of private addresses.
    'http://[::127.0.0.1]:5232/',
    'http://[::7f00:1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::10.0.0.7]/',
    'http://[64:ff9b::a00:7]/',
    'http://[2002:7f00:1::]/',
    'http://[2002:c0a8:101::1]/',
    'http://0.0.0.0/',
  ]) {
    const res = await call('POST', '/sync/connectors', { kind: 'carddav', label: 'x', url })
    t.equal(res.status, 422, url)
    t.match(res.body.error, { code: 'UNPROCESSABLE', details: { field: 'url', constraint: 'private_address' } }, url)
  }
  const bad = await call('POST', '/sync/connectors', { kind: 'carddav', label: 'x', url: 'file:///etc/passwd' })
  t.match(bad.body.error, { code: 'VALIDATION_ERROR', details: { field: 'url' } })
  const missing = await call('POST', '/sync/connectors', { kind: 'caldav', label: 'x' })
  t.match(missing.body.error, { code: 'VALIDATION_ERROR', details: { field: 'url', constraint: 'required' } })
  // The owner (an admin) may use the LAN; so may everyone when the instance allows it.
  t.equal((await api(app, o.token)('POST', '/sync/connectors', { kind: 'carddav', label: 'x', url: 'http://127.0.0.1:5232/' })).status, 201)
  const open = await build(t, { env: { HEARTH_TIER: 'pro', HEARTH_OUTBOUND_ALLOW_PRIVATE: 'true' } })
  const o2 = await owner(open)
  const u2 = await addUser(open, o2.token)
  t.equal(
    (await api(open, u2.token)('POST', '/sync/connectors', { kind: 'carddav', label: 'x', url: 'http://127.0.0.1:5232/' })).status,
    201,
  )
  // Another user's connector is not found.
  const mine = (await api(app, o.token)('GET', '/sync/connectors')).body.data[0].id
  t.equal((await call('POST', `/sync/connectors/${mine}/run`)).status, 404)
  t.equal((await call('DELETE', `/sync/connectors/${mine}`)).status, 404)
})

/**
 * A server without sync-collection: Radicale behind a proxy that takes the report out of
 * supported-report-set, so the connector lists ETags (Depth 1 PROPFIND) and compares.
 */
async function withoutSyncCollection(t: { teardown(fn: () => unknown): void }, radicale: Radicale): Promise<string> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const upstream = await fetch(new URL(req.url ?? '/', radicale.base), {
      method: req.method,
      headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<
        string,
        string
      >,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    })
    const body = (await upstream.text()).replace(/<supported-report><report><sync-collection \/><\/report><\/supported-report>/g, '')
    res.writeHead(upstream.status, {
      'content-type': upstream.headers.get('content-type') ?? 'text/plain',
      ...(upstream.headers.get('etag') ? { etag: upstream.headers.get('etag') as string } : {}),
    })
    res.end(body)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

t.test('carddav without sync-collection: ETag comparison; and scheduled runs', async (t) => {
  const radicale = await startRadicale(t)
  await makeCollections(radicale)
  const proxy = await withoutSyncCollection(t, radicale)
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const call = api(app, o.token)
  await putAdaAndAlan(radicale)
  const c = await call('POST', '/sync/connectors', connectorOn(radicale, 'carddav', 'No sync-collection', `${proxy}/alice/contacts/`))
  const id = c.body.data.id
  t.match((await call('POST', `/sync/connectors/${id}/run`)).body.data, { status: 'ok', created: 2 })
  t.match((await call('POST', `/sync/connectors/${id}/run`)).body.data, { status: 'ok', created: 0, updated: 0, unchanged: 2 })
  await radicale.request('PUT', '/alice/contacts/ada.vcf', vcard('ada-1', 'Ada King', 'ada@example.test'), { 'content-type': 'text/vcard' })
  await radicale.request('DELETE', '/alice/contacts/alan.vcf')
  t.match((await call('POST', `/sync/connectors/${id}/run`)).body.data, { status: 'ok', created: 0, updated: 1, deleted: 1 })
  t.same(
    (await contactsOf(call)).map((x: Json) => x.display_name),
    ['Ada King'],
  )

  // A connector with its own schedule runs as the scheduled job (run here rather than awaited: it is hourly); its log says so.
  const scheduled = await call(
    'POST',
    '/sync/connectors',
    connectorOn(radicale, 'carddav', 'Scheduled', `${radicale.base}/alice/contacts/`, { schedule: '0 * * * *' }),
  )
  t.equal(scheduled.body.data.schedule, '0 * * * *')
  const job = app.hearth.scheduler.get(`sync:${scheduled.body.data.id}`)
  t.equal(job?.nextRun()?.getMinutes(), 0, 'scheduled on the hour')
  await job?.runNow()
  const runs: Json[] = (await call('GET', `/sync/connectors/${scheduled.body.data.id}/runs`)).body.data
  t.match(
    runs.find((r) => r.status === 'ok'),
    { trigger: 'schedule', status: 'ok' },
  )
  t.equal((await contactsOf(call)).length, 2, 'the scheduled connector brought its own copy of Ada (a second connector is a second source)')
  const badCron = await call('POST', '/sync/connectors', {
    kind: 'carddav',
    label: 'x',
    url: `${radicale.base}/`,
    schedule: 'every minute',
  })
  t.match(badCron.body.error, { code: 'VALIDATION_ERROR', details: { field: 'schedule', constraint: 'format' } })
  // At most once every 15 minutes, and no seconds field.
  for (const schedule of ['* * * * * *', '0 0 * * * *', '*/5 * * * *', '0,10 * * * *']) {
    const tooOften = await call('POST', '/sync/connectors', { kind: 'carddav', label: 'x', url: `${radicale.base}/`, schedule })
    t.equal(tooOften.status, 400, schedule)
    t.match(tooOften.body.error, { code: 'VALIDATION_ERROR', details: { field: 'schedule', constraint: 'interval' } }, schedule)
  }
})

t.test('a running connector: a second run and a delete wait for it (409)', async (t) => {
  const held: Array<() => void> = []
  let released = false
  // Holds the first requests until released; answers 500 at once after that.
  const server = createServer((_req, res) => {
    const answer = () => res.writeHead(500).end()
    if (released) answer()
    else held.push(answer)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const call = api(app, o.token)
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dav/`
  const id = (await call('POST', '/sync/connectors', { kind: 'caldav', label: 'Slow', url })).body.data.id
  const first = call('POST', `/sync/connectors/${id}/run`)
  while (held.length === 0) await new Promise((r) => setTimeout(r, 20))
  t.equal((await call('POST', `/sync/connectors/${id}/run`)).body.error.code, 'CONFLICT')
  t.equal((await call('DELETE', `/sync/connectors/${id}`)).body.error.code, 'CONFLICT')
  released = true
  for (const release of held) release()
  const done = await first
  t.match(done.body.data, { status: 'failed', error: /500/ })
  t.equal((await call('DELETE', `/sync/connectors/${id}`)).status, 204)
})
