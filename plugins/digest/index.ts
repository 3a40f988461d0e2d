import { randomBytes } from 'node:crypto'
import { checkTargetUrl, definePlugin, HttpError, Single, Type, type ScheduledJob } from '../../core/plugin-api.js'
import { MIN_SCHEDULE_MINUTES, scheduleMessage, scheduleProblem } from '../../lib/cron.js'
import type { RecordsPluginService } from '../records/public.js'
import { addressBook } from './addresses.js'
import { composeDigest, type Period } from './compose.js'
import { CONFIRM_PATH, claimAddress } from './confirm.js'
import { DeliveryError, sendEmail, sendWebhook } from './deliver.js'
import { renderMarkdown } from './render.js'
import { webhookBody } from './webhook-body.js'
import { Confirmed, ConfirmQuery, Delivery, DigestQuery, DigestSchema, Settings, SettingsBody } from './schemas.js'
import { digestStore, type SettingsRow } from './store.js'

const Config = Type.Object({
  smtpUrl: Type.String({ default: '', env: 'HEARTH_SMTP_URL', description: 'smtp://user:pass@host:port or smtps://...' }),
  smtpHost: Type.String({ default: '', env: 'HEARTH_SMTP_HOST' }),
  smtpPort: Type.Integer({ minimum: 1, maximum: 65535, default: 25, env: 'HEARTH_SMTP_PORT' }),
  smtpFrom: Type.String({ default: 'Hearth <hearth@localhost>', env: 'HEARTH_SMTP_FROM' }),
  allowPrivateTargets: Type.Boolean({ default: false, env: 'HEARTH_OUTBOUND_ALLOW_PRIVATE' }),
})

const pro = { tier: 'pro' } as const
/** Digest deliveries a user may have in a UTC day, scheduled or asked for, by either channel. */
const DELIVERIES_PER_DAY = 48
const EMAIL = /^[^\s@<>,;]{1,64}@[^\s@<>,;]{1,255}$/

/** The digest (pro): what is coming and what changed, on demand or delivered on a schedule by email or webhook. */
export default definePlugin(
  {
    name: 'digest',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'Daily or weekly digest of events, reminders and changes; email or signed webhook delivery',
    dependencies: ['records'],
    prefix: '',
    migrations: new URL('./migrations/', import.meta.url),
    config: Config,
  },
  async (app, api) => {
    const records = api.services.get<RecordsPluginService>('records')
    const store = digestStore(api.db)
    const book = addressBook(api.db, api.now)
    const iso = () => new Date(api.now()).toISOString()
    const smtp = { url: api.config.smtpUrl, host: api.config.smtpHost, port: api.config.smtpPort, from: api.config.smtpFrom }

    const build = (userId: string, period: Period) => {
      const digest = composeDigest(records, userId, period, api.now())
      return { ...digest, markdown: renderMarkdown(digest) }
    }

    /** Deliveries by "deliver status", for hearth_digest_deliveries_total. */
    const deliveries = new Map<string, number>()
    const tally = (how: string, status: string) => deliveries.set(`${how} ${status}`, (deliveries.get(`${how} ${status}`) ?? 0) + 1)
    api.metrics.register(
      'counter',
      'hearth_digest_deliveries_total',
      'Digest deliveries, by channel and status',
      ['deliver', 'status'],
      () => [...deliveries].map(([key, value]) => ({ labels: { deliver: key.split(' ')[0], status: key.split(' ')[1] }, value })),
    )

    /** Composes and sends the user's digest; the outcome is kept in the settings (last_*). */
    const deliver = async (s: SettingsRow) => {
      if (s.deliver === 'email' && !book.isConfirmed(s.user_id, s.target)) {
        store.outcome(s.user_id, iso(), 'the email address is not confirmed yet: open the link sent to it')
        throw new HttpError(
          'UNPROCESSABLE',
          'The email address is not confirmed yet: open the link sent to it, or PUT the settings again',
          {
            field: 'target',
            constraint: 'unconfirmed',
          },
        )
      }
      if (!store.count(s.user_id, api.now(), DELIVERIES_PER_DAY)) {
        const midnight = new Date(api.now()).setUTCHours(24, 0, 0, 0)
        store.outcome(s.user_id, iso(), `${DELIVERIES_PER_DAY} deliveries today already`)
        throw new HttpError('RATE_LIMITED', `At most ${DELIVERIES_PER_DAY} digest deliveries a day (UTC)`, undefined, {
          'retry-after': String(Math.ceil((midnight - api.now()) / 1000)),
        })
      }
      const digest = build(s.user_id, s.period)
      try {
        if (s.deliver === 'email') await sendEmail(smtp, s.target, digest, digest.markdown)
        else {
          if (!s.webhook_secret_enc) throw new DeliveryError('no webhook secret: PUT the settings again')
          const policy = { allowPrivate: api.config.allowPrivateTargets || s.allow_private === 1 }
          await sendWebhook(s.target, api.secrets.decrypt(s.webhook_secret_enc), webhookBody(digest), policy, api.now())
        }
        store.outcome(s.user_id, iso(), null)
        tally(s.deliver, 'ok')
      } catch (err) {
        const message = err instanceof DeliveryError ? err.message : 'delivery failed'
        store.outcome(s.user_id, iso(), message)
        tally(s.deliver, 'failed')
        api.log.warn({ user: s.user_id, deliver: s.deliver, error: message }, 'digest delivery failed')
        throw new HttpError('SERVICE_UNAVAILABLE', message)
      }
    }

    // One job per user with a schedule; paused while the user is on the free tier.
    const jobs = new Map<string, ScheduledJob>()
    const unschedule = (userId: string) => {
      jobs.get(userId)?.stop()
      jobs.delete(userId)
    }
    const schedule = (s: SettingsRow) => {
      unschedule(s.user_id)
      if (!s.schedule || !s.active) return
      jobs.set(
        s.user_id,
        api.cron.schedule(
          `digest:${s.user_id}`,
          s.schedule,
          async () => {
            const current = store.get(s.user_id)
            if (current?.active) await deliver(current).catch(() => undefined)
          },
          { minIntervalMs: MIN_SCHEDULE_MINUTES * 60_000 },
        ),
      )
    }
    for (const s of store.all()) schedule(s)
    api.events.on('user.updated', (e) => {
      const user = e.data as { tier?: string; role?: string } | null
      if (!e.userId || !user?.tier || !user.role || !store.get(e.userId)) return
      store.access(e.userId, user.tier === 'pro', user.role !== 'user')
      schedule(store.get(e.userId) as SettingsRow)
    })

    const view = (s: SettingsRow, secret?: string) => ({
      schedule: s.schedule,
      deliver: s.deliver,
      target: s.target,
      target_confirmed: s.deliver === 'webhook' || book.isConfirmed(s.user_id, s.target),
      period: s.period,
      webhook_secret_set: s.webhook_secret_enc !== null,
      ...(secret ? { webhook_secret: secret } : {}),
      active: s.active === 1,
      last_delivered_at: s.last_delivered_at,
      last_status: s.last_status,
      last_error: s.last_error,
    })
    const settingsOf = (userId: string) => {
      const s = store.get(userId)
      if (!s) throw new HttpError('NOT_FOUND', 'No digest settings: PUT /digest/settings first')
      return s
    }

    app.get(
      '/digest',
      {
        config: pro,
        schema: {
          summary: 'The digest: coming events and reminders, changed notes and contacts',
          description:
            '`period=day` (default) looks 24 hours ahead for events and reminders and 24 hours back for changes; `week` seven days. Recurring events are expanded: each occurrence is one entry.',
          querystring: DigestQuery,
          response: { 200: Single(DigestSchema) },
        },
      },
      async (req) => build(req.userId, req.query.period ?? 'day'),
    )

    app.get(
      '/digest/settings',
      {
        config: { ...pro, errors: ['NOT_FOUND'] },
        schema: { summary: "The caller's digest delivery settings", response: { 200: Single(Settings) } },
      },
      async (req) => view(settingsOf(req.userId)),
    )

    app.put(
      '/digest/settings',
      {
        config: { ...pro, errors: ['UNPROCESSABLE', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'] },
        schema: {
          summary: 'Set how and when the digest is delivered',
          description:
            "`deliver: email` sends to `target` (an address) through the instance SMTP server: the account's own address at once, another one once confirmed through the link emailed to it (`target_confirmed`; at most 5 links a day, 429 past them). `schedule` runs at most once every 15 minutes (400 `{ field: 'schedule', constraint: 'interval' }` otherwise, and for a seconds field). `webhook` POSTs the digest to `target` (a URL), signed with HMAC-SHA256 (headers X-Hearth-Timestamp, X-Hearth-Signature). The signing secret is answered once, when first made or with `rotate_secret: true`. A webhook URL must reach a public address unless the caller is an admin or the instance sets HEARTH_OUTBOUND_ALLOW_PRIVATE.",
          body: SettingsBody,
          response: { 200: Single(Settings) },
        },
      },
      async (req) => {
        const body = req.body
        const problem = body.schedule ? scheduleProblem(body.schedule) : null
        if (problem) throw api.errors.validation('schedule', problem, `schedule ${scheduleMessage(problem)}`)
        const previous = store.get(req.userId)
        const allowPrivate = req.auth.role !== 'user'
        let target = body.target.trim()
        let secretEnc = previous?.webhook_secret_enc ?? null
        let secret: string | undefined
        if (body.deliver === 'email') {
          if (!EMAIL.test(target)) throw api.errors.validation('target', 'format')
          const origin = `${req.protocol}://${req.host}`
          await claimAddress(book, smtp, { userId: req.userId, email: req.auth.email, origin }, target)
        } else {
          target = (await checkTargetUrl(target, 'target', { allowPrivate: allowPrivate || api.config.allowPrivateTargets })).href
          if (!secretEnc || body.rotate_secret) {
            secret = `whsec_${randomBytes(24).toString('base64url')}`
            secretEnc = api.secrets.encrypt(secret)
          }
        }
        const row = store.put({
          user_id: req.userId,
          schedule: body.schedule,
          period: body.period ?? previous?.period ?? 'day',
          deliver: body.deliver,
          target,
          webhook_secret_enc: secretEnc,
          allow_private: allowPrivate ? 1 : 0,
          active: 1,
          updated_at: iso(),
        })
        schedule(row)
        return view(row, secret)
      },
    )

    app.delete(
      '/digest/settings',
      {
        config: { ...pro, errors: ['NOT_FOUND'] },
        schema: { summary: 'Stop digest deliveries (the settings and the webhook secret are removed)', response: { 204: Type.Null() } },
      },
      async (req) => {
        settingsOf(req.userId)
        unschedule(req.userId)
        store.remove(req.userId)
      },
    )

    app.post(
      '/digest/deliver',
      {
        config: { ...pro, errors: ['NOT_FOUND', 'SERVICE_UNAVAILABLE', 'UNPROCESSABLE', 'RATE_LIMITED'] },
        schema: {
          summary: 'Deliver the digest now, as the settings say',
          description:
            "503 SERVICE_UNAVAILABLE when the SMTP server or the webhook receiver fails (the reason is in the message and in the settings’ last_error); 422 `{ field: 'target', constraint: 'unconfirmed' }` while the email address waits for its confirmation; 429 RATE_LIMITED past 48 deliveries in a UTC day (Retry-After: the seconds to midnight UTC).",
          response: { 200: Single(Delivery) },
        },
      },
      async (req) => {
        const s = settingsOf(req.userId)
        await deliver(s)
        return { delivered: true, deliver: s.deliver, at: iso() }
      },
    )

    app.get(
      CONFIRM_PATH.replace(/^\/api\/v1/, ''),
      {
        config: { auth: false, errors: ['NOT_FOUND'] },
        schema: {
          summary: 'Confirm an address for digest emails (the link emailed to it)',
          description:
            'Needs no sign-in: the token is the proof that the link reached the address. Single use; expires after 48 hours (404 NOT_FOUND when unknown, used or expired).',
          querystring: ConfirmQuery,
          response: { 200: Single(Confirmed) },
        },
      },
      async (req) => {
        const done = book.confirm(req.query.token)
        if (!done) throw new HttpError('NOT_FOUND', 'This confirmation link is unknown, used or expired')
        return { address: done.address, confirmed: true }
      },
    )
  },
)
