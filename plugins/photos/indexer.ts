/**
 * Indexes the photos folder for one user: walks it (no symlinks followed, no
 * dot-files), skips files whose size and mtime are unchanged since they were
 * indexed (unless they failed, or lack a caption and the user now has a
 * provider), reads EXIF, and asks the user's vision model for a caption and
 * labels. A provider failure marks that photo's `error` (retried next run);
 * files gone from the folder leave the index. Progress is kept per user.
 */
import type { Dirent } from 'node:fs'
import { createHash } from 'node:crypto'
import { mkdir, opendir, readFile, rename, stat, writeFile } from 'node:fs/promises'
import { extname, join, relative, sep } from 'node:path'
import type Database from 'better-sqlite3'
import type { FastifyBaseLogger } from 'fastify'
import { preparedOnUse } from '../../core/plugin-api.js'
import type { AiClient, AiPluginService } from '../ai/public.js'
import { readExif, thumbnailOf } from './exif.js'
import { forVision, thumbnail } from './images.js'
import type { PhotoStore } from './store.js'

export const VISION_PROMPT =
  'Describe this photo for a search index. Answer with JSON only: {"caption": "<one sentence>", "labels": ["<up to 10 lowercase one-word labels>"]}'

const MIME: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.webp': 'image/webp' }
/** exifr reads these; the vision model gets only the MIME types above. */
const PHOTO_EXTENSIONS = new Set(['.jpg', '.jpeg', '.png', '.webp', '.heic', '.heif', '.tif', '.tiff'])

export const thumbnailKey = (path: string, size: number, mtimeMs: number) =>
  createHash('sha256')
    .update(`${path}\u0000${size}\u0000${Math.trunc(mtimeMs)}`)
    .digest('hex')
    .slice(0, 40)

export interface PhotoIndexState {
  status: 'empty' | 'running' | 'ready' | 'failed'
  total: number
  done: number
  indexed: number
  skipped: number
  removed: number
  failed: number
  error: string | null
  started_at: string | null
  finished_at: string | null
}

export interface PhotoIndexerDeps {
  db: Database.Database
  store: PhotoStore
  ai: AiPluginService
  folder: string
  /** Where thumbnails are kept (shared by users: named by path, size and mtime). */
  thumbnails: string
  visionMaxBytes: number
  maxFiles: number
  log: FastifyBaseLogger
  now: () => number
}

/** The model's answer as caption and labels: its JSON object when it sent one, else its text as the caption. */
export function parseVision(answer: string): { caption: string | null; labels: string[] } {
  const start = answer.indexOf('{')
  const end = answer.lastIndexOf('}')
  if (start >= 0 && end > start) {
    try {
      const body = JSON.parse(answer.slice(start, end + 1)) as { caption?: unknown; labels?: unknown }
      const caption = typeof body.caption === 'string' && body.caption.trim() ? body.caption.trim().slice(0, 500) : null
      const labels = Array.isArray(body.labels)
        ? [
            ...new Set(
              body.labels
                .filter((l): l is string => typeof l === 'string' && l.trim() !== '')
                .map((l) => l.trim().toLowerCase().slice(0, 50)),
            ),
          ].slice(0, 20)
        : []
      return { caption, labels }
    } catch {
      // not JSON after all: the text serves as the caption
    }
  }
  const text = answer.trim().slice(0, 500)
  return { caption: text || null, labels: [] }
}

async function walk(root: string, max: number): Promise<{ files: string[]; truncated: boolean }> {
  const files: string[] = []
  const dirs = [root]
  while (dirs.length) {
    const dir = dirs.pop()!
    let handle
    try {
      handle = await opendir(dir)
    } catch {
      continue
    }
    for await (const entry of handle as AsyncIterable<Dirent>) {
      if (entry.name.startsWith('.')) continue
      const full = join(dir, entry.name)
      if (entry.isDirectory()) dirs.push(full)
      else if (entry.isFile() && PHOTO_EXTENSIONS.has(extname(entry.name).toLowerCase())) {
        if (files.length >= max) return { files, truncated: true }
        files.push(full)
      }
    }
  }
  return { files: files.sort(), truncated: false }
}

export function photoIndexer(d: PhotoIndexerDeps) {
  const q = preparedOnUse(d.db, {
    getState: () =>
      d.db.prepare<[string], PhotoIndexState>(
        'SELECT status, total, done, indexed, skipped, removed, failed, error, started_at, finished_at FROM photos_index_state WHERE user_id = ?',
      ),
    putState: () =>
      d.db.prepare(
        `INSERT INTO photos_index_state (user_id, status, total, done, indexed, skipped, removed, failed, error, started_at, finished_at)
     VALUES (@user_id, @status, @total, @done, @indexed, @skipped, @removed, @failed, @error, @started_at, @finished_at)
     ON CONFLICT (user_id) DO UPDATE SET status = excluded.status, total = excluded.total, done = excluded.done,
       indexed = excluded.indexed, skipped = excluded.skipped, removed = excluded.removed, failed = excluded.failed,
       error = excluded.error, started_at = excluded.started_at, finished_at = excluded.finished_at`,
      ),
  })
  const running = new Map<string, Promise<void>>()
  let closed = false
  const iso = () => new Date(d.now()).toISOString()
  const empty: PhotoIndexState = {
    status: 'empty',
    total: 0,
    done: 0,
    indexed: 0,
    skipped: 0,
    removed: 0,
    failed: 0,
    error: null,
    started_at: null,
    finished_at: null,
  }
  const state = (userId: string): PhotoIndexState => q.getState.get(userId) ?? empty

  /** A thumbnail made with sharp, else the one the camera embedded in EXIF; its file name, or null. */
  const makeThumbnail = async (input: Buffer | string, path: string, size: number, mtimeMs: number): Promise<string | null> => {
    const name = `${thumbnailKey(path, size, mtimeMs)}.jpg`
    const target = join(d.thumbnails, name)
    if (
      await stat(target).then(
        () => true,
        () => false,
      )
    )
      return name
    const made = await thumbnail(input).catch(async () => thumbnailOf(typeof input === 'string' ? await readFile(input) : input))
    if (!made) return null
    await mkdir(d.thumbnails, { recursive: true })
    await writeFile(`${target}.tmp`, made)
    await rename(`${target}.tmp`, target)
    return name
  }

  const describe = async (client: AiClient, bytes: Buffer, mime: string) =>
    parseVision(await client.describeImage(bytes, mime, VISION_PROMPT))

  const run = async (userId: string) => {
    const s: PhotoIndexState = { ...empty, status: 'running', started_at: iso() }
    const save = () => q.putState.run({ user_id: userId, ...s })
    save()
    const { files, truncated } = await walk(d.folder, d.maxFiles)
    s.total = files.length
    save()
    const known = d.store.known(userId)
    const client = d.ai.clientFor(userId)
    const seen = new Set<string>()
    for (const full of files) {
      if (closed) break
      const path = relative(d.folder, full).split(sep).join('/')
      seen.add(path)
      try {
        const info = await stat(full)
        const before = known.get(path)
        const unchanged = before && before.size === info.size && before.mtime_ms === Math.trunc(info.mtimeMs)
        if (unchanged && !before.error && (before.caption !== null || !client)) {
          s.skipped++
          continue
        }
        const mime = MIME[extname(full).toLowerCase()]
        const small = info.size <= d.visionMaxBytes
        const bytes = small ? await readFile(full) : null
        const exif = await readExif(bytes ?? full)
        let vision: { caption: string | null; labels: string[] } = { caption: null, labels: [] }
        let error: string | null = null
        const thumb = await makeThumbnail(bytes ?? full, path, info.size, info.mtimeMs)
        const image = client && bytes ? await forVision(bytes, mime) : null
        if (client && image) {
          try {
            vision = await describe(client, image.bytes, image.mime)
          } catch (err) {
            error = `vision model: ${(err as Error).message}`
            s.failed++
          }
        }
        d.store.save({
          user_id: userId,
          path,
          size: info.size,
          mtime_ms: Math.trunc(info.mtimeMs),
          taken_at: exif.takenAt,
          camera_make: exif.make,
          camera_model: exif.model,
          latitude: exif.latitude,
          longitude: exif.longitude,
          caption: vision.caption,
          labels: JSON.stringify(vision.labels),
          thumbnail: thumb,
          error,
          indexed_at: iso(),
        })
        if (!error) s.indexed++
      } catch (err) {
        s.failed++
        d.log.warn({ path, err: (err as Error).message }, 'photo not indexed')
      } finally {
        s.done++
        save()
      }
    }
    if (!truncated && !closed) {
      const gone = [...known.keys()].filter((p) => !seen.has(p))
      d.store.removePaths(userId, gone)
      s.removed = gone.length
    }
    s.status = 'ready'
    s.finished_at = iso()
    if (truncated) s.error = `stopped at ${d.maxFiles} files (HEARTH_PHOTOS_MAX_FILES)`
    save()
  }

  return {
    state,
    /** Starts an incremental run in the background; a running one is left to finish. */
    start(userId: string): PhotoIndexState {
      if (!running.has(userId)) {
        q.putState.run({ user_id: userId, ...state(userId), status: 'running', done: 0, started_at: iso(), finished_at: null })
        const p = run(userId)
          .catch((err) => {
            d.log.error({ err }, 'photo index run failed')
            q.putState.run({ user_id: userId, ...state(userId), status: 'failed', error: (err as Error).message, finished_at: iso() })
          })
          .finally(() => running.delete(userId))
        running.set(userId, p)
      }
      return state(userId)
    },
    async close() {
      closed = true
      await Promise.all(running.values())
    },
  }
}
export type PhotoIndexer = ReturnType<typeof photoIndexer>
