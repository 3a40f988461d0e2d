import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { HttpError, preparedOnUse } from '../../../core/plugin-api.js'
import { boundedJpeg, ImageRejected } from '../../../lib/image-bound.js'
import type { ApiRecord, RecordsService } from '../service.js'

/**
 * Contact photos: what a member uploads (or a vCard carries) is re-encoded before anything is
 * stored (lib/image-bound.ts: upright, at most PHOTO_SIDE pixels a side, a JPEG without any
 * metadata, GPS included), and kept in contact_photos beside the contact. Whether a contact has
 * one is its `has_photo` field: setting or removing a photo writes the contact, so its version,
 * its vCard's ETag and its `contact.updated` event follow. Who may see or change a photo is who
 * may read or write the contact (sharing/access.ts, through the records service).
 */
export const PHOTO_MAX_BYTES = 5 * 1024 * 1024
export const PHOTO_SIDE = 512
/** Width × height an upload may declare: a 40-megapixel camera photo passes, a 50,000 × 50,000 canvas does not. */
export const PHOTO_MAX_PIXELS = 40_000_000
export const PHOTO_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const

export interface StoredPhoto {
  type: string
  bytes: Buffer
  etag: string
  updated_at: string
}

/** A photo ready to store: re-encoded, never the bytes as received. */
export interface PreparedPhoto {
  readonly bytes: Buffer
  readonly type: 'image/jpeg'
}

export interface ContactPhotos {
  /** Re-encodes received bytes; throws 415 (not JPEG/PNG/WebP), 400 (broken) or 413 (too many pixels or bytes). */
  prepare(bytes: Buffer): Promise<PreparedPhoto>
  /** Stores the contact's photo (the caller must be able to write it); answers the contact. */
  set(userId: string, id: string, photo: PreparedPhoto): ApiRecord
  /** The photo of a contact the caller may read, out of the trash; 404 when there is none. */
  get(userId: string, id: string): StoredPhoto
  /** Removes the photo (the caller must be able to write the contact); 404 when there is none. */
  remove(userId: string, id: string): ApiRecord
  /** The photo's bytes of a record already read by its owner's rules (exports, CardDAV), or null. */
  bytesOf(record: ApiRecord): Buffer | null
  /** Stores an imported contact's photo beside its new row, inside the import's transaction. */
  storeImported(record: ApiRecord, photo: PreparedPhoto): void
}

interface Row {
  type: string
  bytes: Buffer
  etag: string
  updated_at: string
}

export function createContactPhotos({
  db,
  service,
  now,
}: {
  db: Database.Database
  service: RecordsService
  now: () => number
}): ContactPhotos {
  const q = preparedOnUse(db, {
    get: () =>
      db.prepare<[string, string], Row>('SELECT type, bytes, etag, updated_at FROM contact_photos WHERE contact_id = ? AND user_id = ?'),
    put: () =>
      db.prepare(
        `INSERT INTO contact_photos (contact_id, user_id, type, bytes, etag, updated_at) VALUES (@id, @owner, @type, @bytes, @etag, @at)
         ON CONFLICT (contact_id) DO UPDATE SET type = excluded.type, bytes = excluded.bytes, etag = excluded.etag, updated_at = excluded.updated_at`,
      ),
    remove: () => db.prepare<[string, string]>('DELETE FROM contact_photos WHERE contact_id = ? AND user_id = ?'),
  })
  const noPhoto = () => new HttpError('NOT_FOUND', 'This contact has no photo')
  const put = (record: ApiRecord, photo: PreparedPhoto) => {
    const etag = `"${createHash('sha256').update(photo.bytes).digest('base64url').slice(0, 27)}"`
    q.put.run({
      id: record.id,
      owner: String(record.owner_id),
      type: photo.type,
      bytes: photo.bytes,
      etag,
      at: new Date(now()).toISOString(),
    })
  }

  return {
    async prepare(bytes) {
      if (bytes.length > PHOTO_MAX_BYTES)
        throw new HttpError('PAYLOAD_TOO_LARGE', `A photo is at most ${PHOTO_MAX_BYTES / 1024 / 1024} MiB`)
      try {
        const image = await boundedJpeg(bytes, { side: PHOTO_SIDE, maxPixels: PHOTO_MAX_PIXELS })
        return { bytes: image.bytes, type: image.type }
      } catch (err) {
        if (!(err instanceof ImageRejected)) throw err
        if (err.reason === 'unsupported')
          throw new HttpError('UNSUPPORTED_MEDIA_TYPE', `The photo must be a JPEG, PNG or WebP image: ${err.message}`)
        if (err.reason === 'too-many-pixels')
          throw new HttpError('PAYLOAD_TOO_LARGE', err.message, { constraint: 'pixels', limit: PHOTO_MAX_PIXELS })
        throw new HttpError('VALIDATION_ERROR', err.message, { field: 'body', constraint: 'image' })
      }
    },

    set(userId, id, photo) {
      return db.transaction(() => {
        // The write of the contact checks the caller's access first; the photo goes in under its owner.
        const record = service.setExtras(userId, 'contacts', id, { has_photo: true })
        put(record, photo)
        return record
      })()
    },

    get(userId, id) {
      const record = service.get(userId, 'contacts', id)
      const row = record.has_photo ? q.get.get(id, String(record.owner_id)) : undefined
      if (!row) throw noPhoto()
      return row
    },

    remove(userId, id) {
      return db.transaction(() => {
        const current = service.get(userId, 'contacts', id)
        if (!current.has_photo) {
          // Refused as a write would be (403 read-only) before saying there is nothing to remove.
          service.access.check(userId, service.definition('contacts'), current, 'update')
          throw noPhoto()
        }
        const record = service.setExtras(userId, 'contacts', id, { has_photo: false })
        q.remove.run(id, String(record.owner_id))
        return record
      })()
    },

    bytesOf(record) {
      if (!record.has_photo) return null
      return q.get.get(record.id, String(record.owner_id))?.bytes ?? null
    },

    storeImported: put,
  }
}
