import { Nullable, Type } from '../../core/plugin-api.js'

const Outcome = {
  last_at: Nullable(Type.String({ format: 'date-time' })),
  ok: Nullable(Type.Boolean()),
  error: Nullable(Type.String()),
}

export const Protection = Type.Object({
  local: Type.Object({ ...Outcome, count: Type.Integer({ description: 'Scheduled local backups kept' }) }),
  offsite: Type.Object({
    ...Outcome,
    repository: Nullable(Type.String({ description: 'HEARTH_OFFSITE_REPOSITORY with any password in it masked; null when unset' })),
    snapshot_id: Nullable(Type.String()),
    size_bytes: Nullable(Type.Integer({ description: 'Bytes the last snapshot holds' })),
  }),
  check: Type.Object(Outcome),
  drill: Type.Object({ ...Outcome, snapshot_id: Nullable(Type.String()) }),
  kit_confirmed: Type.Boolean({ description: 'Whether `hearth offsite kit` has shown the repository and password' }),
  score: Type.Integer({
    minimum: 0,
    maximum: 3,
    description: 'Copies that exist and are verified: the data, a local backup, a drilled off-site copy',
  }),
  advice: Type.String({ description: 'What to do next' }),
})

export const Started = Type.Object({
  operation: Type.Union([Type.Literal('run'), Type.Literal('check'), Type.Literal('drill')]),
  started: Type.Boolean({ description: 'false: an off-site operation was already under way and keeps going' }),
  running: Nullable(Type.String({ description: 'The operation under way now' })),
})
