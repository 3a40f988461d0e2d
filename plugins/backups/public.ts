/**
 * What other plugins (off-site protection) and the CLI build on: the consistent database copy, the
 * manifest's schema versions, the checks a restore makes before touching the data folder, putting a
 * verified copy in place, and the scheduled local backups.
 */
export { onlineBackup, sha256File } from './archive.js'
export { BackupsConfig } from './config.js'
export { BackupRefused, verifyUnpacked } from './extract.js'
export { type BackupManifest, DB_ENTRY, ENV_ENTRY, MANIFEST_ENTRY, schemaVersions } from './manifest.js'
export { installRestored } from './restore.js'
import type { ScheduledBackup } from './schedule.js'
export { listScheduled, type ScheduledBackup } from './schedule.js'

/** What the backups plugin provides to plugins that depend on it (api.services.get('backups')). */
export interface BackupsService {
  /** HEARTH_BACKUP_DIR, or <data>/backups. */
  dir: string
  /** The scheduled backups, newest first. */
  list(): ScheduledBackup[]
}
