import { Nullable, StringEnum, Timestamp, Type, Uuid } from '../../core/plugin-api.js'

const Period = StringEnum(['day', 'week'] as const)

const Change = Type.Object({
  id: Uuid,
  title: Type.String(),
  change: StringEnum(['created', 'updated'] as const),
  updated_at: Timestamp,
})

export const DigestSchema = Type.Object({
  period: Period,
  generated_at: Timestamp,
  timezone: Type.String({ description: "the instance's IANA zone the Markdown shows times in" }),
  upcoming: Type.Object({ from: Timestamp, to: Timestamp }),
  changed_since: Timestamp,
  events: Type.Array(
    Type.Object({
      id: Uuid,
      series_id: Nullable(Uuid),
      title: Type.String(),
      start_at: Timestamp,
      end_at: Nullable(Timestamp),
      all_day: Type.Boolean(),
      location: Nullable(Type.String()),
      calendar_name: Type.String(),
    }),
    { description: 'events starting in the coming period, each occurrence of a recurring event on its own' },
  ),
  reminders: Type.Array(
    Type.Object({
      event_id: Uuid,
      title: Type.String(),
      event_start_at: Timestamp,
      remind_at: Timestamp,
      type: Type.String(),
      minutes_before: Type.Integer(),
    }),
    { description: 'event reminders falling due in the coming period' },
  ),
  tasks_due: Type.Array(
    Type.Object({
      id: Uuid,
      title: Type.String(),
      due_at: Timestamp,
      all_day: Type.Boolean(),
      status: StringEnum(['needs-action', 'in-process'] as const),
      priority: Type.Integer(),
      list_name: Type.String(),
      overdue: Type.Boolean(),
    }),
    { description: 'open tasks due by the end of the coming period, overdue ones included, soonest first' },
  ),
  notes_changed: Type.Array(Change, { description: 'notes created or updated in the past period, newest first' }),
  contacts_changed: Type.Array(Change),
  truncated: Type.Boolean({ description: 'a section passed 500 entries and was cut' }),
  markdown: Type.String({ description: 'the same digest rendered as Markdown (the email text)' }),
})

export const DigestQuery = Type.Object({ period: Type.Optional(Period) })

export const SettingsBody = Type.Object(
  {
    schedule: Nullable(
      Type.String({
        minLength: 9,
        maxLength: 100,
        description: 'cron expression (five fields, server time) of deliveries, at most once every 15 minutes; null: none',
      }),
    ),
    deliver: StringEnum(['email', 'webhook'] as const),
    target: Type.String({ minLength: 3, maxLength: 2000, description: 'an email address, or the webhook URL' }),
    period: Type.Optional(Period),
    rotate_secret: Type.Optional(Type.Boolean({ description: 'webhook: make a new signing secret (answered once)' })),
  },
  { additionalProperties: false },
)

export const Settings = Type.Object({
  schedule: Nullable(Type.String()),
  deliver: StringEnum(['email', 'webhook'] as const),
  target: Type.String(),
  target_confirmed: Type.Boolean({
    description: "email: the account's own address, or confirmed through the link emailed to it; until then deliveries wait",
  }),
  period: Period,
  webhook_secret_set: Type.Boolean(),
  webhook_secret: Type.Optional(
    Type.String({ description: 'the signing secret, only in the answer that made it: keep it, it is never shown again' }),
  ),
  active: Type.Boolean({ description: 'false while the user is on the free tier: scheduled deliveries pause' }),
  last_delivered_at: Nullable(Timestamp),
  last_status: Nullable(StringEnum(['ok', 'failed'] as const)),
  last_error: Nullable(Type.String()),
})

export const ConfirmQuery = Type.Object({ token: Type.String({ minLength: 16, maxLength: 100 }) })

export const Confirmed = Type.Object({ address: Type.String(), confirmed: Type.Boolean() })

export const Delivery = Type.Object({ delivered: Type.Boolean(), deliver: StringEnum(['email', 'webhook'] as const), at: Timestamp })
