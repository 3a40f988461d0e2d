import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Type } from '@sinclair/typebox'
import { definePlugin, HttpError, ListOf, Single } from '../../core/plugin-api.js'
import type { AiPluginService } from '../ai/public.js'
import { PhotosConfig } from './config.js'
import { photoIndexer } from './indexer.js'
import { Photo, PhotoIndexState, PhotoQuery } from './schemas.js'
import { photoStore } from './store.js'

/** A date bound as an instant: a whole day from its first or to its last millisecond (UTC). */
function bound(value: string | undefined, end: boolean, field: string): string | undefined {
  if (value === undefined) return undefined
  const text = value.length === 10 ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value
  const ms = Date.parse(text)
  if (!Number.isFinite(ms)) throw new HttpError('INVALID_QUERY', `${field}: not a date`, { field, constraint: 'format' })
  return new Date(ms).toISOString()
}

/** Photo AI indexing (pro): EXIF and the user's vision model over the photos folder. */
export default definePlugin(
  {
    name: 'photos',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'Photo indexing: EXIF, captions and labels from your vision model, search by words and dates',
    dependencies: ['ai'],
    migrations: new URL('./migrations/', import.meta.url),
    config: PhotosConfig,
  },
  async (app, api) => {
    const folder = api.config.photosDir || join(api.dataDir, 'photos')
    const store = photoStore(api.db)
    const indexer = photoIndexer({
      db: api.db,
      store,
      ai: api.services.get<AiPluginService>('ai'),
      folder,
      thumbnails: join(api.dataDir, 'cache', 'photo-thumbnails'),
      visionMaxBytes: api.config.visionMaxBytes,
      maxFiles: api.config.maxFiles,
      log: api.log,
      now: api.now,
    })
    api.onClose(() => indexer.close())

    app.get(
      '/',
      {
        schema: {
          summary: 'Search your indexed photos by words and dates',
          description:
            '`search`: every word must appear in the caption, the labels or the path. `from`/`to` bound `taken_at` (inclusive). Newest first.',
          querystring: PhotoQuery,
          response: { 200: ListOf(Photo) },
        },
        config: { tier: 'pro' },
      },
      async (req) => {
        const q = req.query
        return store.search(req.userId, { ...q, from: bound(q.from, false, 'from'), to: bound(q.to, true, 'to') })
      },
    )

    app.post(
      '/index',
      {
        schema: {
          summary: 'Index the photos folder (incremental, in the background)',
          description:
            'Files unchanged since the last run (size and mtime) are skipped. Without AI settings, photos are indexed from EXIF alone. Progress at GET /api/v1/photos/index.',
          response: { 202: Single(PhotoIndexState) },
        },
        config: { tier: 'pro' },
      },
      async (req, reply) => {
        reply.code(202)
        return indexer.start(req.userId)
      },
    )

    app.get(
      '/index',
      { schema: { summary: 'Progress of your photo index', response: { 200: Single(PhotoIndexState) } }, config: { tier: 'pro' } },
      async (req) => indexer.state(req.userId),
    )

    app.get(
      '/:id/thumbnail',
      {
        schema: {
          summary: "A photo's thumbnail (JPEG, at most 320 px a side)",
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 200: { description: 'The thumbnail', content: { 'image/jpeg': { schema: { type: 'string', format: 'binary' } } } } },
        },
        config: { tier: 'pro', envelope: 'none' },
      },
      async (req, reply) => {
        const row = store.get(req.userId, req.params.id)
        if (!row) throw api.errors.notFound('Photo')
        const thumb = row.thumbnail ? await readFile(join(api.dataDir, 'cache', 'photo-thumbnails', row.thumbnail)).catch(() => null) : null
        if (!thumb) throw api.errors.notFound('Thumbnail')
        return reply.type('image/jpeg').send(thumb)
      },
    )
  },
)
