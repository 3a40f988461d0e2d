import { createHmac, timingSafeEqual } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { addUser, auth, build, owner, type TestApp } from '../../../test/helper.js'
import { expectProOnly, setTier } from '../../sync/test/pro-gate.js'
import { smtpSink } from './smtp-sink.js'

/** JSON answers, read loosely: the assertions check their shape. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any

/** The digest through the HTTP API: content with recurring events, delivery to a local SMTP sink and a webhook receiver. */
const at = (s: string) => Date.parse(s)

/** Quoted-printable soft breaks and escapes undone (nodemailer encodes the text part). */
const unQuote = (s: string) =>
  Buffer.from(
    s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8')

async function webhookReceiver(t: { teardown(fn: () => unknown): void }) {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = []
  let status = 200
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
    res.writeHead(status).end()
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.teardown(() => new Promise<void>((r) => server.close(() => r())))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, fail: (s: number) => (status = s) }
}

function client(app: TestApp, token: string) {
  return async (method: string, url: string, payload?: unknown) => {
    const res = await app.inject({
      method: method as 'GET',
      url: `/api/v1${url}`,
      headers: auth(token),
      ...(payload ? { payload: payload as object } : {}),
    })
    return { status: res.statusCode, body: (res.body ? res.json() : {}) as Json }
  }
}

t.test('digest content, email and webhook delivery', async (t) => {
  const smtp = await smtpSink(t)
  const hook = await webhookReceiver(t)
  let clock = at('2027-02-26T08:00:00Z')
  const app = await build(t, {
    now: () => clock,
    env: { HEARTH_TIER: 'pro', HEARTH_SMTP_URL: smtp.url, HEARTH_SMTP_FROM: 'hearth@home.test' },
  })
  const o = await owner(app)
  const call = client(app, o.token)

  // Before the period: an old note and contact.
  await call('POST', '/notes', { title: 'Old note', content: 'x' })
  const contact = (await call('POST', '/contacts', { display_name: 'Old Friend' })).body.data
  // Recurring and one-off events.
  await call('POST', '/events', {
    title: 'Standup',
    start_at: '2027-02-01T09:00:00Z',
    end_at: '2027-02-01T09:15:00Z',
    timezone: 'UTC',
    recurrence: { freq: 'DAILY' },
    reminders: [{ type: 'notification', minutes_before: 15 }],
  })
  await call('POST', '/events', {
    title: 'Yoga',
    start_at: '2027-02-03T18:00:00Z',
    end_at: '2027-02-03T19:00:00Z',
    timezone: 'UTC',
    recurrence: { freq: 'WEEKLY', byday: ['WE'] },
  })
  await call('POST', '/events', {
    title: 'Dentist',
    start_at: '2027-03-02T10:00:00Z',
    location: 'Main St',
    timezone: 'UTC',
    reminders: [{ type: 'email', minutes_before: 1440 }],
  })
  await call('POST', '/events', { title: 'Called off', start_at: '2027-03-01T12:00:00Z', status: 'cancelled' })
  // Tasks: overdue, due in the day, due later, done, undated.
  await call('POST', '/tasks', { title: 'Tax return', due_at: '2027-02-28T17:00:00Z', priority: 1 })
  await call('POST', '/tasks', { title: 'Bins', due_at: '2027-03-01T19:00:00Z', list_name: 'house', status: 'in-process' })
  await call('POST', '/tasks', { title: 'Passport', due_at: '2027-03-20T09:00:00Z' })
  await call('POST', '/tasks', { title: 'Done already', due_at: '2027-02-27T09:00:00Z', status: 'completed' })
  await call('POST', '/tasks', { title: 'Someday' })

  // Within the day before "now": changes.
  clock = at('2027-03-01T07:00:00Z')
  await call('POST', '/notes', { title: 'Fresh idea', content: 'y' })
  await call('PATCH', `/contacts/${contact.id}`, { company: 'Acme' })
  await call('POST', '/contacts', { display_name: 'New Person' })

  clock = at('2027-03-01T08:00:00Z')
  const day = await call('GET', '/digest?period=day')
  t.equal(day.status, 200, JSON.stringify(day.body))
  const d = day.body.data
  t.match(d, {
    period: 'day',
    upcoming: { from: '2027-03-01T08:00:00.000Z', to: '2027-03-02T08:00:00.000Z' },
    changed_since: '2027-02-28T08:00:00.000Z',
  })
  t.same(
    d.events.map((e: Json) => [e.title, e.start_at]),
    [['Standup', '2027-03-01T09:00:00.000Z']],
    'cancelled events are left out; the dentist is tomorrow after 08:00',
  )
  t.ok(d.events[0].series_id, 'an occurrence names its series')
  t.same(
    d.reminders.map((r: Json) => [r.title, r.remind_at, r.minutes_before]),
    [
      ['Standup', '2027-03-01T08:45:00.000Z', 15],
      ['Dentist', '2027-03-01T10:00:00.000Z', 1440],
    ],
  )
  t.same(
    d.notes_changed.map((n: Json) => [n.title, n.change]),
    [['Fresh idea', 'created']],
  )
  t.same(d.contacts_changed.map((c: Json) => [c.title, c.change]).sort(), [
    ['New Person', 'created'],
    ['Old Friend', 'updated'],
  ])
  t.match(d.markdown, /## Coming up\n\n- \*\*Mon 1 Mar 09:00–09:15\*\* Standup\n/)
  t.match(d.markdown, /- Mon 1 Mar 10:00: Dentist \(1 day before, email\)/)
  t.match(d.markdown, /## Notes changed\n\n- Fresh idea \(new\)/)
  t.same(
    d.tasks_due.map((x: Json) => [x.title, x.due_at, x.overdue, x.status]),
    [
      ['Tax return', '2027-02-28T17:00:00.000Z', true, 'needs-action'],
      ['Bins', '2027-03-01T19:00:00.000Z', false, 'in-process'],
    ],
    'open tasks due by the end of the day, the overdue one first; done, later and undated ones left out',
  )
  t.match(d.markdown, /## Tasks due\n\n- \*\*overdue\*\* Sun 28 Feb 17:00: Tax return\n- Mon 1 Mar 19:00: Bins \(house\)\n/)

  const week = (await call('GET', '/digest?period=week')).body.data
  t.same(
    week.events.map((e: Json) => `${e.title} ${e.start_at.slice(5, 16)}`),
    [
      'Standup 03-01T09:00',
      'Standup 03-02T09:00',
      'Dentist 03-02T10:00',
      'Standup 03-03T09:00',
      'Yoga 03-03T18:00',
      'Standup 03-04T09:00',
      'Standup 03-05T09:00',
      'Standup 03-06T09:00',
      'Standup 03-07T09:00',
    ],
  )
  t.equal((await call('GET', '/digest?period=month')).body.error.code, 'INVALID_QUERY')

  // No settings yet.
  t.equal((await call('GET', '/digest/settings')).status, 404)
  t.equal((await call('POST', '/digest/deliver')).status, 404)

  // Email through the SMTP sink.
  // The account's own address needs no confirmation.
  const email = await call('PUT', '/digest/settings', { schedule: null, deliver: 'email', target: o.email })
  t.equal(email.status, 200, JSON.stringify(email.body))
  t.match(email.body.data, { deliver: 'email', target: o.email, target_confirmed: true, period: 'day', webhook_secret_set: false })
  const sent = await call('POST', '/digest/deliver')
  t.equal(sent.status, 200, JSON.stringify(sent.body))
  t.equal(smtp.messages.length, 1)
  t.same(smtp.messages[0].to, [o.email])
  const mail = unQuote(smtp.messages[0].raw)
  t.match(mail, /Subject: Your daily Hearth digest/)
  t.match(mail, /From: hearth@home\.test/)
  t.match(mail, /\*\*Mon 1 Mar 09:00–09:15\*\* Standup/)
  t.match((await call('GET', '/digest/settings')).body.data, {
    last_status: 'ok',
    last_error: null,
    last_delivered_at: '2027-03-01T08:00:00.000Z',
  })
  t.equal(
    (await call('PUT', '/digest/settings', { schedule: null, deliver: 'email', target: 'not an address' })).body.error.details.field,
    'target',
  )
  t.equal(
    (await call('PUT', '/digest/settings', { schedule: 'often', deliver: 'email', target: 'a@b.test' })).body.error.details.field,
    'schedule',
  )

  // Webhook: the secret is answered once; the receiver checks the signature.
  const put = await call('PUT', '/digest/settings', { schedule: null, deliver: 'webhook', target: hook.url, period: 'week' })
  t.equal(put.status, 200, JSON.stringify(put.body))
  const secret = put.body.data.webhook_secret as string
  t.match(secret, /^whsec_/)
  const shown = (await call('GET', '/digest/settings')).body.data
  t.equal(shown.webhook_secret_set, true)
  t.notOk('webhook_secret' in shown, 'the secret is never shown again')
  t.notOk('webhook_secret' in (await call('PUT', '/digest/settings', { schedule: null, deliver: 'webhook', target: hook.url })).body.data)
  t.equal((await call('POST', '/digest/deliver')).status, 200)
  t.equal(hook.received.length, 1)
  const { headers, body } = hook.received[0]
  const expected = `sha256=${createHmac('sha256', secret).update(`${headers['x-hearth-timestamp']}.${body}`).digest('hex')}`
  t.ok(timingSafeEqual(Buffer.from(String(headers['x-hearth-signature'])), Buffer.from(expected)), 'the signature checks out')
  t.equal(headers['x-hearth-timestamp'], String(Math.floor(clock / 1000)))
  t.equal(headers['x-hearth-event'], 'digest')
  const payload = JSON.parse(body)
  t.equal(payload.event, 'digest')
  t.equal(payload.data.period, 'week')
  t.equal(payload.data.events.length, 9)
  t.equal(typeof payload.data.markdown, 'string')
  const wrong = createHmac('sha256', 'another secret').update(`${headers['x-hearth-timestamp']}.${body}`).digest('hex')
  t.not(`sha256=${wrong}`, headers['x-hearth-signature'])

  // A rotated secret signs the next delivery.
  const rotated = (await call('PUT', '/digest/settings', { schedule: null, deliver: 'webhook', target: hook.url, rotate_secret: true }))
    .body.data
  t.not(rotated.webhook_secret, secret)

  // The receiver fails: 503 with the reason, kept in the settings.
  hook.fail(500)
  const failed = await call('POST', '/digest/deliver')
  t.equal(failed.status, 503)
  t.match(failed.body.error.message, /answered 500/)
  t.match((await call('GET', '/digest/settings')).body.data, { last_status: 'failed', last_error: 'webhook: the receiver answered 500' })

  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(metrics, /hearth_digest_deliveries_total\{deliver="email",status="ok"\} 1/)
  t.match(metrics, /hearth_digest_deliveries_total\{deliver="webhook",status="failed"\} 1/)

  // Secrets never in the database in clear.
  for (const file of ['hearth.db', 'hearth.db-wal']) {
    const path = join(app.dataDir, file)
    if (existsSync(path)) {
      const bytes = readFileSync(path)
      t.notOk(bytes.includes(secret) || bytes.includes(rotated.webhook_secret), `${file} holds no webhook secret`)
    }
  }

  // A user who is not an admin cannot aim the webhook at the local network.
  const user = await addUser(app, o.token)
  const refused = await client(app, user.token)('PUT', '/digest/settings', { schedule: null, deliver: 'webhook', target: hook.url })
  t.equal(refused.status, 422)
  t.match(refused.body.error.details, { field: 'target', constraint: 'private_address' })

  t.equal((await call('DELETE', '/digest/settings')).status, 204)
  t.equal((await call('GET', '/digest/settings')).status, 404)
})

t.test('scheduled delivery, paused when the user turns free; tier gates', async (t) => {
  const smtp = await smtpSink(t)
  const app = await build(t, { env: { HEARTH_TIER: 'pro', HEARTH_SMTP_URL: smtp.url } })
  const o = await owner(app)
  const user = await addUser(app, o.token)
  const call = client(app, user.token)
  const put = await call('PUT', '/digest/settings', { schedule: '0 7 * * *', deliver: 'email', target: user.email })
  t.equal(put.status, 200)
  // The scheduled job itself, run now (the schedule is daily: the test does not wait for it).
  const job = app.hearth.scheduler.get(`digest:${user.userId}`)
  t.equal(job?.nextRun()?.getHours(), 7)
  await job?.runNow()
  t.equal(smtp.messages.length, 1, 'a scheduled digest arrived')
  t.same(smtp.messages[0].to, [user.email])

  await setTier(t, app, o.token, user.userId, 'free')
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/api/v1/digest'],
    ['GET', '/api/v1/digest?period=week'],
    ['GET', '/api/v1/digest/settings'],
    ['PUT', '/api/v1/digest/settings', { schedule: null, deliver: 'email', target: 'a@b.test' }],
    ['DELETE', '/api/v1/digest/settings'],
    ['POST', '/api/v1/digest/deliver'],
  ]
  await expectProOnly(t, app, user.token, routes)
  // While free, the schedule is paused (read from the database: the routes answer 403).
  const db = new Database(join(app.dataDir, 'hearth.db'), { readonly: true })
  t.teardown(() => db.close())
  t.same(db.prepare('SELECT active, allow_private FROM digest_settings WHERE user_id = ?').get(user.userId), {
    active: 0,
    allow_private: 0,
  })
  // Back to pro: the schedule resumes.
  await app.inject({ method: 'PATCH', url: `/api/v1/admin/users/${user.userId}`, headers: auth(o.token), payload: { tier: 'pro' } })
  t.equal((await call('GET', '/digest/settings')).body.data.active, true)
})
