import { type Static, Type } from '@sinclair/typebox'
import { env } from '../../lib/config-env.js'

/**
 * The storage plugin's config slice. Each data category is measured from
 * its own folder, named by its own variable HEARTH_DATA_<CATEGORY>_DIR
 * (empty: <data>/<category>; for `database`, the SQLite files of the data
 * folder). One variable per folder keeps each a plain path an operator can
 * set in hearth.env without quoting JSON.
 */
const dir = (category: string) => env(`HEARTH_DATA_${category.toUpperCase()}_DIR`, Type.String({ default: '' }))

export const CATEGORIES = ['files', 'photos', 'attachments', 'models', 'media', 'crypto', 'backups', 'database'] as const
export type Category = (typeof CATEGORIES)[number]

export const CATEGORY_LABELS: Record<Category, string> = {
  files: 'Files',
  photos: 'Photos',
  attachments: 'Attachments',
  models: 'AI models',
  media: 'Media',
  crypto: 'Crypto',
  backups: 'Backups',
  database: 'Database',
}

export const StorageConfig = Type.Object({
  filesDir: dir('files'),
  photosDir: dir('photos'),
  attachmentsDir: dir('attachments'),
  modelsDir: dir('models'),
  mediaDir: dir('media'),
  cryptoDir: dir('crypto'),
  backupsDir: dir('backups'),
  databaseDir: dir('database'),
  /** Wall-clock budget of each category's size calculation; past it the category answers status 'timeout'. */
  usageTimeoutMs: env('HEARTH_STORAGE_USAGE_TIMEOUT_MS', Type.Integer({ minimum: 1, maximum: 600_000, default: 30_000 })),
  /** Time-out of each storage tool run (lsblk, df, smartctl, mdadm). */
  toolTimeoutMs: env('HEARTH_STORAGE_TOOL_TIMEOUT_MS', Type.Integer({ minimum: 100, maximum: 600_000, default: 15_000 })),
  /** List loop devices as disks (to build test pools on loop devices); off on real appliances. */
  includeLoopDevices: env('HEARTH_STORAGE_INCLUDE_LOOP', Type.Boolean({ default: false })),
})
export type StorageConfig = Static<typeof StorageConfig>
