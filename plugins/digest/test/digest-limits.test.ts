import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { addUser, auth, build, owner, type TestApp } from '../../../test/helper.js'
import { smtpSink } from './smtp-sink.js'
import { webhookBody } from '../webhook-body.js'

/**
 * What a digest may be aimed at: a schedule at most every 15 minutes; email only to the account's own
 * address or one confirmed by the link emailed to it; a webhook only where the outbound guard allows,
 * and at most 48 deliveries a UTC day. Through the HTTP API, with a local SMTP sink.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

function client(app: TestApp, token: string) {
  return async (method: string, url: string, payload?: unknown) => {
    const res = await app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: { ...auth(token), host: 'hearth.home.test:7200' },
      ...(payload ? { payload: payload as object } : {}),
    })
    return { status: res.statusCode, headers: res.headers, body: (res.body ? res.json() : {}) as Json }
  }
}

/** The confirmation link in an email (quoted-printable soft breaks undone). */
const linkIn = (raw: string) => {
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')
  const m = /http:\/\/hearth\.home\.test:7200(\/api\/v1\/digest\/confirm\?token=[A-Za-z0-9_-]+)/.exec(text)
  return m?.[1]
}

t.test('schedules run at most once every 15 minutes; a seconds field is refused', async (t) => {
  const app = await build(t, { env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const call = client(app, o.token)
  for (const schedule of ['* * * * * *', '0 0 * * * *', '* * * * *', '*/5 * * * *', '0,10 * * * *', '0,50 * * * *']) {
    const res = await call('PUT', '/digest/settings', { schedule, deliver: 'email', target: o.email })
    t.equal(res.status, 400, schedule)
    t.match(res.body.error, { code: 'VALIDATION_ERROR', details: { field: 'schedule', constraint: 'interval' } }, schedule)
  }
  for (const schedule of ['0 * * * *', '*/15 * * * *', '30 7 * * 1-5']) {
    t.equal((await call('PUT', '/digest/settings', { schedule, deliver: 'email', target: o.email })).status, 200, schedule)
  }
})

t.test('email goes to the account’s own address, or to one confirmed by the link sent to it', async (t) => {
  const smtp = await smtpSink(t)
  const app = await build(t, { env: { HEARTH_TIER: 'pro', HEARTH_SMTP_URL: smtp.url } })
  const o = await owner(app)
  const user = await addUser(app, o.token)
  const call = client(app, user.token)

  // Someone else's address: saved, not confirmed; a link goes to it, the digest does not.
  const put = await call('PUT', '/digest/settings', { schedule: null, deliver: 'email', target: 'Victim@Elsewhere.test' })
  t.equal(put.status, 200, JSON.stringify(put.body))
  t.equal(put.body.data.target_confirmed, false)
  t.equal(smtp.messages.length, 1, 'one confirmation email')
  t.same(
    smtp.messages[0]?.to.map((a) => a.toLowerCase()),
    ['victim@elsewhere.test'],
  )
  t.match(smtp.messages[0]?.raw, /Subject: Confirm this address for a Hearth digest/)
  t.match(smtp.messages[0]?.raw, new RegExp(user.email.replace(/[.]/g, '\\.')), 'it says who asked')
  const refused = await call('POST', '/digest/deliver')
  t.equal(refused.status, 422)
  t.match(refused.body.error, { code: 'UNPROCESSABLE', details: { field: 'target', constraint: 'unconfirmed' } })
  t.equal(smtp.messages.length, 1, 'no digest went to an unconfirmed address')
  // The scheduled path refuses it too.
  t.equal((await call('PUT', '/digest/settings', { schedule: '0 7 * * *', deliver: 'email', target: 'victim@elsewhere.test' })).status, 200)
  t.equal(smtp.messages.length, 2, 'asking again sends a new link')
  await app.hearth.scheduler.get(`digest:${user.userId}`)?.runNow()
  t.equal(smtp.messages.length, 2, 'the scheduled run sent nothing')
  t.match((await call('GET', '/digest/settings')).body.data, { last_status: 'failed', last_error: /not confirmed/ })

  // The first link was replaced by the second; the second confirms, once, without signing in.
  const first = linkIn(smtp.messages[0]?.raw ?? '')
  const second = linkIn(smtp.messages[1]?.raw ?? '')
  t.ok(first && second, 'each email carries a link on the origin the request came in on')
  t.equal((await app.inject({ method: 'GET', url: first as string })).statusCode, 404, 'a replaced link no longer works')
  const confirmed = await app.inject({ method: 'GET', url: second as string })
  t.equal(confirmed.statusCode, 200, confirmed.body)
  t.same(confirmed.json().data, { address: 'victim@elsewhere.test', confirmed: true })
  t.equal((await app.inject({ method: 'GET', url: second as string })).statusCode, 404, 'single use')
  t.equal((await app.inject({ method: 'GET', url: '/api/v1/digest/confirm?token=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' })).statusCode, 404)
  t.equal((await call('GET', '/digest/settings')).body.data.target_confirmed, true)
  t.equal((await call('POST', '/digest/deliver')).status, 200)
  t.same(smtp.messages.at(-1)?.to, ['victim@elsewhere.test'], 'delivered once confirmed')

  // Another user's confirmation is not this one's.
  const other = await addUser(app, o.token)
  const theirs = await client(app, other.token)('PUT', '/digest/settings', {
    schedule: null,
    deliver: 'email',
    target: 'victim@elsewhere.test',
  })
  t.equal(theirs.body.data.target_confirmed, false)

  // At most five links a day per user.
  const spam = client(app, other.token)
  let status = 200
  for (let i = 0; i < 6 && status === 200; i++)
    status = (await spam('PUT', '/digest/settings', { schedule: null, deliver: 'email', target: `n${i}@elsewhere.test` })).status
  t.equal(status, 429, 'the sixth link of the day is refused')
})

t.test('webhooks: only where the outbound guard allows; at most 48 deliveries a day', async (t) => {
  let received = 0
  const server = createServer((_req, res) => {
    received++
    res.writeHead(200).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const port = (server.address() as AddressInfo).port
  let clock = Date.parse('2027-03-01T08:00:00Z')
  const app = await build(t, { now: () => clock, env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const user = await addUser(app, o.token)

  // A member (not an admin) cannot aim a webhook at loopback in any spelling.
  for (const target of [
    `http://127.0.0.1:${port}/`,
    `http://[::127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[::7f00:1]:${port}/`,
  ]) {
    const res = await client(app, user.token)('PUT', '/digest/settings', { schedule: null, deliver: 'webhook', target })
    t.equal(res.status, 422, target)
    t.match(res.body.error.details, { field: 'target', constraint: 'private_address' }, target)
  }
  t.equal(received, 0)

  // The owner may reach the LAN; deliveries stop at 48 in a UTC day and resume the next.
  const call = client(app, o.token)
  t.equal(
    (await call('PUT', '/digest/settings', { schedule: null, deliver: 'webhook', target: `http://127.0.0.1:${port}/hook` })).status,
    200,
  )
  for (let i = 0; i < 48; i++) t.equal((await call('POST', '/digest/deliver')).status, 200)
  const over = await call('POST', '/digest/deliver')
  t.equal(over.status, 429)
  t.equal(over.body.error.code, 'RATE_LIMITED')
  t.equal(over.headers['retry-after'], String(16 * 3600), 'until midnight UTC')
  t.equal(received, 48)
  clock = Date.parse('2027-03-02T00:00:01Z')
  t.equal((await call('POST', '/digest/deliver')).status, 200, 'a new day')
  t.equal(received, 49)
})

t.test('a webhook body stays within its byte budget: the digest is composed within it, and says it was cut', async (t) => {
  const bodies: string[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    bodies.push(Buffer.concat(chunks).toString('utf8'))
    res.writeHead(200).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  const port = (server.address() as AddressInfo).port
  const app = await build(t, { now: () => Date.parse('2027-03-01T08:00:00Z'), env: { HEARTH_TIER: 'pro' } })
  const o = await owner(app)
  const call = client(app, o.token)
  // 200 events tomorrow with the longest title and location the API takes: about 600 KB of digest.
  for (let i = 0; i < 200; i++) {
    const created = await call('POST', '/events', {
      title: `${i} ${'t'.repeat(495)}`,
      location: `${i} ${'l'.repeat(995)}`,
      start_at: `2027-03-02T${String(8 + (i % 10)).padStart(2, '0')}:00:00Z`,
      timezone: 'UTC',
    })
    t.equal(created.status, 201, `event ${i}`, { bail: true })
  }
  t.equal(
    (await call('PUT', '/digest/settings', { schedule: null, deliver: 'webhook', target: `http://127.0.0.1:${port}/hook`, period: 'week' }))
      .status,
    200,
  )
  t.equal((await call('POST', '/digest/deliver')).status, 200)
  t.equal(bodies.length, 1)
  const body = bodies[0] as string
  t.ok(Buffer.byteLength(body) <= 256 * 1024, `a body of ${Buffer.byteLength(body)} bytes, within 256 KiB`)
  const payload = JSON.parse(body)
  t.equal(payload.event, 'digest')
  t.equal(payload.data.truncated, true, 'the digest says it was cut')
  const kept = payload.data.events as Array<{ title: string; location: string }>
  t.ok(kept.length > 0 && kept.length < 200, `${kept.length} of the 200 events kept`)
  // Event i starts at 08:00 + (i mod 10) hours: in start order, the earliest are kept.
  const byStart = [...Array(200).keys()].sort((a, b) => (a % 10) - (b % 10) || a - b)
  t.same(
    kept.map((e) => Number(e.title.split(' ')[0])),
    byStart.slice(0, kept.length),
    'the first events, in order',
  )
  t.match(kept[0], { title: /^0 t{495}$/, location: /^0 l{995}$/ }, 'each whole')
  t.match(payload.data.markdown, /Some sections were cut short/)
  t.same(
    payload.data,
    (await call('GET', '/digest?period=week')).body.data,
    'the digest the API answers, as composed within the same budget',
  )
})

t.test('past the shortened texts, the longest section loses its last entries until the body fits', async (t) => {
  const change = (i: number) => ({ id: String(i), title: `note ${i}`, change: 'updated' as const, updated_at: '2027-03-01T08:00:00Z' })
  const digest = {
    period: 'week' as const,
    generated_at: '2027-03-01T08:00:00Z',
    timezone: 'UTC',
    upcoming: { from: '2027-03-01T08:00:00Z', to: '2027-03-08T08:00:00Z' },
    changed_since: '2027-02-22T08:00:00Z',
    events: [],
    reminders: [],
    tasks_due: [],
    notes_changed: Array.from({ length: 500 }, (_, i) => change(i)),
    contacts_changed: Array.from({ length: 10 }, (_, i) => change(i)),
    truncated: false,
    markdown: 'x'.repeat(100_000),
  }
  const body = webhookBody(digest, 8 * 1024)
  t.ok(Buffer.byteLength(body) <= 8 * 1024, `${Buffer.byteLength(body)} bytes`)
  const payload = JSON.parse(body)
  t.equal(payload.cut, true)
  t.ok(payload.data.notes_changed.length < 500 && payload.data.notes_changed.length > 0, `${payload.data.notes_changed.length} notes kept`)
  t.same(payload.data.notes_changed[0], change(0), 'the first entries are the ones kept')
  t.same(
    webhookBody({ ...digest, notes_changed: [], markdown: '' }),
    JSON.stringify({ event: 'digest', data: { ...digest, notes_changed: [], markdown: '' } }),
    'a body that fits is sent as it is',
  )
})
