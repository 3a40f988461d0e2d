import { IdParams, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { ifNoneMatchHolds } from '../../../lib/etag.js'
import { type ContactPhotos, PHOTO_MAX_BYTES, PHOTO_SIDE, PHOTO_TYPES } from '../resources/contact-photos.js'
import type { RecordsService } from '../service.js'
import { tagged, withEtag } from './conditional.js'

/**
 * A contact's photo: PUT the image bytes (JPEG, PNG or WebP), GET the stored JPEG, DELETE it.
 * The image body types are read in this scope only: every other route keeps refusing them (415).
 */
export async function contactPhotoRoutes(app: PluginInstance, { service, photos }: { service: RecordsService; photos: ContactPhotos }) {
  const Contact = service.definition('contacts').schemas.record
  const tags = ['contacts']
  await app.register(async (scope: PluginInstance) => {
    scope.addContentTypeParser([...PHOTO_TYPES], { parseAs: 'buffer', bodyLimit: PHOTO_MAX_BYTES }, (_req, body, done) => done(null, body))

    scope.put(
      '/contacts/:id/photo',
      {
        schema: {
          tags,
          summary: "Set a contact's photo",
          description: `The body is the image itself (Content-Type image/jpeg, image/png or image/webp, at most ${PHOTO_MAX_BYTES / 1024 / 1024} MiB). It is stored re-encoded: upright, at most ${PHOTO_SIDE}×${PHOTO_SIDE}, a JPEG without its metadata (EXIF, GPS). Answers the contact (has_photo true, a new ETag).`,
          params: IdParams,
          response: { 200: withEtag(Single(Contact)) },
        },
        config: { errors: ['VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] },
      },
      async (request, reply) => {
        const photo = await photos.prepare(request.body as Buffer)
        return tagged(reply, photos.set(request.userId, request.params.id, photo))
      },
    )

    scope.get(
      '/contacts/:id/photo',
      {
        schema: {
          tags,
          summary: "A contact's photo",
          description: 'The stored JPEG with its ETag (If-None-Match answers 304). 404 when the contact has none or is in the trash.',
          params: IdParams,
          response: {
            200: { description: 'The photo', content: { 'image/jpeg': { schema: { type: 'string', format: 'binary' } } } },
            304: { description: "Not modified: the If-None-Match tag is still the photo's", type: 'null' },
          },
        },
        config: { envelope: 'none' },
      },
      async (request, reply) => {
        const photo = photos.get(request.userId, request.params.id)
        // Private data: kept by the member's own browser only, and asked again (ETag) before each use.
        reply.header('cache-control', 'private, no-cache').header('etag', photo.etag)
        const since = request.headers['if-none-match']
        if (typeof since === 'string' && !ifNoneMatchHolds(since, photo.etag)) return reply.code(304).send()
        return reply.type(photo.type).header('content-length', photo.bytes.length).send(photo.bytes)
      },
    )

    scope.delete(
      '/contacts/:id/photo',
      {
        schema: {
          tags,
          summary: "Remove a contact's photo",
          params: IdParams,
          response: { 200: withEtag(Single(Contact)) },
        },
      },
      async (request, reply) => tagged(reply, photos.remove(request.userId, request.params.id)),
    )
  })
}
