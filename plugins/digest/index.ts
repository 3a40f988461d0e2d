import { definePlugin, Single, Type } from '../../core/plugin-api.js'
import type { RecordsPluginService } from '../records/public.js'
import { CONFIRM_PATH } from './confirm.js'
import { Confirmed, ConfirmQuery, Delivery, DigestQuery, DigestSchema, Settings, SettingsBody } from './schemas.js'
import { digestService } from './service.js'
import { sendMails } from './deliver.js'
import type { DigestPluginService } from './public.js'

const Config = Type.Object({
  smtpUrl: Type.String({ default: '', env: 'HEARTH_SMTP_URL', description: 'smtp://user:pass@host:port or smtps://...' }),
  smtpHost: Type.String({ default: '', env: 'HEARTH_SMTP_HOST' }),
  smtpPort: Type.Integer({ minimum: 1, maximum: 65535, default: 25, env: 'HEARTH_SMTP_PORT' }),
  smtpFrom: Type.String({ default: 'Hearth <hearth@localhost>', env: 'HEARTH_SMTP_FROM' }),
  allowPrivateTargets: Type.Boolean({ default: false, env: 'HEARTH_OUTBOUND_ALLOW_PRIVATE' }),
})

const pro = { tier: 'pro' } as const

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
    const smtp = { url: api.config.smtpUrl, host: api.config.smtpHost, port: api.config.smtpPort, from: api.config.smtpFrom }
    api.services.provide<DigestPluginService>({
      mailer: { configured: Boolean(smtp.url || smtp.host), send: (mails) => sendMails(smtp, mails) },
    })
    const digests = digestService({
      api,
      records: api.services.get<RecordsPluginService>('records'),
      smtp,
      allowPrivateTargets: api.config.allowPrivateTargets,
    })

    app.get(
      '/digest',
      {
        config: pro,
        schema: {
          summary: 'The digest: coming events, reminders and tasks due, changed notes and contacts',
          description:
            '`period=day` (default) looks 24 hours ahead for events and reminders and 24 hours back for changes; `week` seven days. Recurring events are expanded: each occurrence is one entry.',
          querystring: DigestQuery,
          response: { 200: Single(DigestSchema) },
        },
      },
      async (req) => digests.compose(req.userId, req.query.period ?? 'day'),
    )

    app.get(
      '/digest/settings',
      {
        config: { ...pro, errors: ['NOT_FOUND'] },
        schema: { summary: "The caller's digest delivery settings", response: { 200: Single(Settings) } },
      },
      async (req) => digests.settings(req.userId),
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
      async (req) =>
        digests.configure(
          { userId: req.userId, email: req.auth.email, admin: req.auth.role !== 'user', origin: `${req.protocol}://${req.host}` },
          req.body,
        ),
    )

    app.delete(
      '/digest/settings',
      {
        config: { ...pro, errors: ['NOT_FOUND'] },
        schema: { summary: 'Stop digest deliveries (the settings and the webhook secret are removed)', response: { 204: Type.Null() } },
      },
      async (req) => digests.stop(req.userId),
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
      async (req) => digests.deliverNow(req.userId),
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
      async (req) => digests.confirm(req.query.token),
    )
  },
)
