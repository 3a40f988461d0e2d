import { Type } from '@sinclair/typebox'
import { Limit, Nullable, Offset, StringEnum, Timestamp } from '../../core/plugin-api.js'

export const Photo = Type.Object({
  id: Type.String(),
  path: Type.String({ description: 'relative to the photos folder' }),
  size_bytes: Type.Integer(),
  taken_at: Nullable(Timestamp),
  camera: Nullable(Type.Object({ make: Nullable(Type.String()), model: Nullable(Type.String()) })),
  gps: Nullable(Type.Object({ latitude: Type.Number(), longitude: Type.Number() })),
  caption: Nullable(Type.String()),
  labels: Type.Array(Type.String()),
  has_thumbnail: Type.Boolean({ description: 'GET /photos/:id/thumbnail serves one' }),
  error: Nullable(Type.String({ description: 'why the vision model gave nothing (retried by the next index run)' })),
  indexed_at: Timestamp,
})

const DateOrInstant = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,3})?)?(Z|[+-]\\d{2}:\\d{2}))?$',
  description: 'a date (YYYY-MM-DD, whole day, UTC) or an ISO 8601 instant',
})

export const PhotoQuery = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 500, description: 'words found in the caption, labels or path (all of them)' })),
    from: Type.Optional(DateOrInstant),
    to: Type.Optional(DateOrInstant),
    limit: Limit,
    offset: Offset,
  },
  { additionalProperties: false },
)

export const PhotoIndexState = Type.Object({
  status: StringEnum(['empty', 'running', 'ready', 'failed'] as const),
  total: Type.Integer({ description: 'photo files found in the folder' }),
  done: Type.Integer(),
  indexed: Type.Integer(),
  skipped: Type.Integer({ description: 'unchanged since the last run (size and mtime)' }),
  removed: Type.Integer({ description: 'gone from the folder' }),
  failed: Type.Integer(),
  error: Nullable(Type.String()),
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
})
