import { HttpError } from '../../../core/plugin-api.js'
import { mapLimit } from '../../../lib/map-limit.js'
import type { StoredProperty } from '../engine/properties.js'
import type { InlinePhoto } from '../formats/vcard-photo.js'
import type { ImportOptions, ImportResult, RecordsService } from '../service.js'
import type { ContactPhotos, PreparedPhoto } from './contact-photos.js'

/**
 * Importing contacts with their inline photos: every photo is re-encoded first (two at a time,
 * in libuv's threads), then the contacts are written in one transaction with their photos beside
 * them. A photo that cannot be read (not an image, broken, too large) is left out: the contact
 * itself is imported without it, as a photo is not worth refusing a person's card for.
 */
export interface ContactImportEntry {
  record: Record<string, unknown>
  properties?: StoredProperty[]
  photo?: InlinePhoto
}

export async function importContacts(
  service: RecordsService,
  photos: ContactPhotos,
  userId: string,
  entries: ContactImportEntry[],
  opts: ImportOptions,
): Promise<ImportResult> {
  const prepared = await mapLimit(entries, 2, async (e): Promise<PreparedPhoto | null> => {
    if (!e.photo) return null
    try {
      return await photos.prepare(e.photo.bytes)
    } catch (err) {
      if (err instanceof HttpError) return null
      throw err
    }
  })
  const bodies = entries.map((e, i) => ({
    ...e.record,
    ...(prepared[i] ? { has_photo: true } : {}),
    ...(e.properties?.length ? { properties: e.properties } : {}),
  }))
  return service.importMany(userId, 'contacts', bodies, {
    ...opts,
    alongside: (record, index) => {
      const photo = prepared[index]
      if (photo) photos.storeImported(record, photo)
    },
  })
}
