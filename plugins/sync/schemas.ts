import { Nullable, StringEnum, Timestamp, Type, Uuid } from '../../core/plugin-api.js'

export const Kind = StringEnum(['carddav', 'caldav', 'google_keep'] as const)

export const Run = Type.Object({
  id: Uuid,
  connector_id: Uuid,
  trigger: StringEnum(['manual', 'schedule'] as const),
  status: StringEnum(['running', 'ok', 'failed'] as const),
  started_at: Timestamp,
  finished_at: Nullable(Timestamp),
  created: Type.Integer({ description: 'remote objects that made new records' }),
  updated: Type.Integer({ description: 'remote objects whose records were updated' }),
  deleted: Type.Integer({ description: 'remote objects gone: their records moved to the trash' }),
  unchanged: Type.Integer({ description: 'remote objects skipped: same ETag (or Keep edit time) as last run' }),
  failed: Type.Integer({ description: 'remote objects the records engine refused' }),
  error: Nullable(Type.String({ description: 'why the run failed (never a credential)' })),
})

export const Connector = Type.Object({
  id: Uuid,
  kind: Kind,
  label: Type.String(),
  url: Nullable(Type.String()),
  username: Nullable(Type.String()),
  has_password: Type.Boolean({ description: 'a password is stored (encrypted); it is never returned' }),
  schedule: Nullable(Type.String({ description: 'cron expression of scheduled runs; null: the instance schedule (HEARTH_SYNC_CRON)' })),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_run: Nullable(Run),
})

export const CreateConnector = Type.Object(
  {
    kind: Kind,
    label: Type.String({ minLength: 1, maxLength: 200 }),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'CardDAV/CalDAV server, principal or collection URL' })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    schedule: Type.Optional(
      Nullable(Type.String({ minLength: 9, maxLength: 100, description: 'cron expression (node-cron, five or six fields)' })),
    ),
  },
  { additionalProperties: false },
)
