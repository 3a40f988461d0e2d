import { randomBytes } from 'node:crypto'
import { checkTargetUrl, HttpError, type HearthApi, type ScheduledJob, type Static } from '../../core/plugin-api.js'
import { MIN_SCHEDULE_MINUTES, scheduleMessage, scheduleProblem } from '../../lib/cron.js'
import type { RecordsPluginService } from '../records/public.js'
import { addressBook } from './addresses.js'
import { composeDigest, type Period } from './compose.js'
import { claimAddress } from './confirm.js'
import { DeliveryError, sendEmail, sendWebhook, type SmtpSettings } from './deliver.js'
import { renderMarkdown } from './render.js'
import type { SettingsBody } from './schemas.js'
import { digestStore, type SettingsRow } from './store.js'
import { webhookBody } from './webhook-body.js'

/**
 * The digest of a user: composing it, the delivery settings (an email address confirmed by a
 * link, or a webhook URL judged by the outbound-address policy and signed with a secret of its
 * own), deliveries now or on the user's schedule within a daily allowance, and their metrics.
 * The routes in index.ts are schemas over these calls.
 */

/** Digest deliveries a user may have in a UTC day, scheduled or asked for, by either channel. */
const DELIVERIES_PER_DAY = 48
const EMAIL = /^[^\s@<>,;]{1,64}@[^\s@<>,;]{1,255}$/

export interface DigestDeps {
  api: Pick<HearthApi, 'db' | 'cron' | 'log' | 'secrets' | 'now' | 'events' | 'errors' | 'metrics'>
  records: RecordsPluginService
  smtp: SmtpSettings
  /** Every user's webhook may reach loopback and private networks (HEARTH_OUTBOUND_ALLOW_PRIVATE). */
  allowPrivateTargets: boolean
}

/** Who configures: an owner or admin (`admin`) may name private webhook addresses; `origin` builds the confirmation link. */
export interface Caller {
  userId: string
  email: string | null
  admin: boolean
  origin: string
}

export function digestService({ api, records, smtp, allowPrivateTargets }: DigestDeps) {
  const store = digestStore(api.db)
  const book = addressBook(api.db, api.now)
  const iso = () => new Date(api.now()).toISOString()

  const build = async (userId: string, period: Period) => {
    const digest = await composeDigest(records, userId, period, api.now())
    return { ...digest, markdown: renderMarkdown(digest) }
  }

  /** Deliveries by "deliver status", for hearth_digest_deliveries_total. */
  const deliveries = new Map<string, number>()
  const tally = (how: string, status: string) => deliveries.set(`${how} ${status}`, (deliveries.get(`${how} ${status}`) ?? 0) + 1)
  api.metrics.register('counter', 'hearth_digest_deliveries_total', 'Digest deliveries, by channel and status', ['deliver', 'status'], () =>
    [...deliveries].map(([key, value]) => ({ labels: { deliver: key.split(' ')[0], status: key.split(' ')[1] }, value })),
  )

  /** Composes and sends the user's digest; the outcome is kept in the settings (last_*). */
  const deliver = async (s: SettingsRow) => {
    if (s.deliver === 'email' && !book.isConfirmed(s.user_id, s.target)) {
      store.outcome(s.user_id, iso(), 'the email address is not confirmed yet: open the link sent to it')
      throw new HttpError('UNPROCESSABLE', 'The email address is not confirmed yet: open the link sent to it, or PUT the settings again', {
        field: 'target',
        constraint: 'unconfirmed',
      })
    }
    if (!store.count(s.user_id, api.now(), DELIVERIES_PER_DAY)) {
      const midnight = new Date(api.now()).setUTCHours(24, 0, 0, 0)
      store.outcome(s.user_id, iso(), `${DELIVERIES_PER_DAY} deliveries today already`)
      throw new HttpError('RATE_LIMITED', `At most ${DELIVERIES_PER_DAY} digest deliveries a day (UTC)`, undefined, {
        'retry-after': String(Math.ceil((midnight - api.now()) / 1000)),
      })
    }
    const digest = await build(s.user_id, s.period)
    try {
      if (s.deliver === 'email') await sendEmail(smtp, s.target, digest, digest.markdown)
      else {
        if (!s.webhook_secret_enc) throw new DeliveryError('no webhook secret: PUT the settings again')
        const policy = { allowPrivate: allowPrivateTargets || s.allow_private === 1 }
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

  return {
    compose: build,

    settings: (userId: string) => view(settingsOf(userId)),

    async configure(caller: Caller, body: Static<typeof SettingsBody>) {
      const problem = body.schedule ? scheduleProblem(body.schedule) : null
      if (problem) throw api.errors.validation('schedule', problem, `schedule ${scheduleMessage(problem)}`)
      const previous = store.get(caller.userId)
      let target = body.target.trim()
      let secretEnc = previous?.webhook_secret_enc ?? null
      let secret: string | undefined
      if (body.deliver === 'email') {
        if (!EMAIL.test(target)) throw api.errors.validation('target', 'format')
        await claimAddress(book, smtp, { userId: caller.userId, email: caller.email, origin: caller.origin }, target)
      } else {
        target = (await checkTargetUrl(target, 'target', { allowPrivate: caller.admin || allowPrivateTargets })).href
        if (!secretEnc || body.rotate_secret) {
          secret = `whsec_${randomBytes(24).toString('base64url')}`
          secretEnc = api.secrets.encrypt(secret)
        }
      }
      const row = store.put({
        user_id: caller.userId,
        schedule: body.schedule,
        period: body.period ?? previous?.period ?? 'day',
        deliver: body.deliver,
        target,
        webhook_secret_enc: secretEnc,
        allow_private: caller.admin ? 1 : 0,
        active: 1,
        updated_at: iso(),
      })
      schedule(row)
      return view(row, secret)
    },

    stop(userId: string) {
      settingsOf(userId)
      unschedule(userId)
      store.remove(userId)
    },

    async deliverNow(userId: string) {
      const s = settingsOf(userId)
      await deliver(s)
      return { delivered: true, deliver: s.deliver, at: iso() }
    },

    confirm(token: string) {
      const done = book.confirm(token)
      if (!done) throw new HttpError('NOT_FOUND', 'This confirmation link is unknown, used or expired')
      return { address: done.address, confirmed: true }
    },
  }
}
