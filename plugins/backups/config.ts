import { type Static, Type } from '@sinclair/typebox'
import { env } from '../../lib/config-env.js'

/** docs/operations.md: scheduled backups with retention. */
export const BackupsConfig = Type.Object({
  /** Cron expression of scheduled backups (e.g. `30 3 * * *`); empty: none. */
  cron: env('HEARTH_BACKUP_CRON', Type.String({ default: '' })),
  /** Where scheduled backups go; empty: `<data>/backups`. */
  dir: env('HEARTH_BACKUP_DIR', Type.String({ default: '' })),
  /** Scheduled backups kept; older ones are deleted after each new one. */
  keep: env('HEARTH_BACKUP_KEEP', Type.Integer({ minimum: 1, maximum: 1000, default: 7 })),
  /** Encrypts scheduled backups with this passphrase (scrypt + AES-256-GCM); empty: not encrypted. */
  passphrase: env('HEARTH_BACKUP_PASSPHRASE', Type.String({ default: '' })),
})
export type BackupsConfig = Static<typeof BackupsConfig>
