import { type Static, Type } from '@sinclair/typebox'
import { env } from '../../lib/config-env.js'

/** docs/operations.md "Off-site protection". */
export const OffsiteConfig = Type.Object({
  /** Any restic repository: a folder, `sftp:user@host:/path`, `rest:https://…`, `s3:…`; empty: off-site protection is off. */
  repository: env('HEARTH_OFFSITE_REPOSITORY', Type.String({ default: '' })),
  /** The repository's password; generated into hearth.env when a repository is set without one. */
  password: env('HEARTH_OFFSITE_PASSWORD', Type.String({ default: '' })),
  /** Snapshots kept per period. */
  keep: env('HEARTH_OFFSITE_KEEP', Type.String({ default: 'daily=7,weekly=4,monthly=12' })),
  /** When the daemon sends a snapshot (at most once every 15 minutes); empty: only by hand. */
  cron: env('HEARTH_OFFSITE_CRON', Type.String({ default: '15 3 * * *' })),
  /** Percent of the repository's data a check reads back (100: all of it, 0: structure only). */
  checkReadPercent: env('HEARTH_OFFSITE_CHECK_READ_PERCENT', Type.Integer({ minimum: 0, maximum: 100, default: 100 })),
  bin: env('HEARTH_RESTIC_BIN', Type.String({ minLength: 1, default: 'restic' })),
})
export type OffsiteConfig = Static<typeof OffsiteConfig>
