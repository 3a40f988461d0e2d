import { type Static, Type } from '@sinclair/typebox'
import { env } from '../../lib/config-env.js'

/**
 * The photos folder is the storage plugin's `photos` data-usage category: the same variable
 * (HEARTH_DATA_PHOTOS_DIR; empty: <data>/photos), so what the storage page measures is what is indexed.
 */
export const PhotosConfig = Type.Object({
  photosDir: env('HEARTH_DATA_PHOTOS_DIR', Type.String({ default: '' })),
  /** Larger files are indexed from EXIF alone: they are not sent to the vision model. */
  visionMaxBytes: env(
    'HEARTH_PHOTOS_VISION_MAX_BYTES',
    Type.Integer({ minimum: 0, maximum: 100 * 1024 * 1024, default: 20 * 1024 * 1024 }),
  ),
  /** At most this many files are indexed per run (the walk stops there). */
  maxFiles: env('HEARTH_PHOTOS_MAX_FILES', Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1_000_000 })),
})
export type PhotosConfig = Static<typeof PhotosConfig>
