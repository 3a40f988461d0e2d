/** The photo index table: per user, one row per file of the photos folder. */
import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../core/plugin-api.js'

export interface PhotoRow {
  id: string
  user_id: string
  path: string
  size: number
  mtime_ms: number
  taken_at: string | null
  camera_make: string | null
  camera_model: string | null
  latitude: number | null
  longitude: number | null
  caption: string | null
  labels: string
  thumbnail: string | null
  error: string | null
  indexed_at: string
}

export interface Photo {
  id: string
  path: string
  size_bytes: number
  taken_at: string | null
  camera: { make: string | null; model: string | null } | null
  gps: { latitude: number; longitude: number } | null
  caption: string | null
  labels: string[]
  has_thumbnail: boolean
  error: string | null
  indexed_at: string
}

export interface PhotoSearch {
  search?: string
  /** ISO instants, inclusive. */
  from?: string
  to?: string
  limit: number
  offset: number
}

export const toPhoto = (r: PhotoRow): Photo => ({
  id: r.id,
  path: r.path,
  size_bytes: r.size,
  taken_at: r.taken_at,
  camera: r.camera_make || r.camera_model ? { make: r.camera_make, model: r.camera_model } : null,
  gps: r.latitude !== null && r.longitude !== null ? { latitude: r.latitude, longitude: r.longitude } : null,
  caption: r.caption,
  labels: JSON.parse(r.labels) as string[],
  has_thumbnail: r.thumbnail !== null,
  error: r.error,
  indexed_at: r.indexed_at,
})

const WORD = /[\p{L}\p{N}]+/gu
const likeOf = (word: string) => `%${word.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export function photoStore(db: Database.Database) {
  const stmts = preparedOnUse(db, {
    upsert: () =>
      db.prepare(
        `INSERT INTO photos_index (id, user_id, path, size, mtime_ms, taken_at, camera_make, camera_model, latitude, longitude,
       caption, labels, thumbnail, error, indexed_at)
     VALUES (@id, @user_id, @path, @size, @mtime_ms, @taken_at, @camera_make, @camera_model, @latitude, @longitude,
       @caption, @labels, @thumbnail, @error, @indexed_at)
     ON CONFLICT (user_id, path) DO UPDATE SET size = excluded.size, mtime_ms = excluded.mtime_ms, taken_at = excluded.taken_at,
       camera_make = excluded.camera_make, camera_model = excluded.camera_model, latitude = excluded.latitude,
       longitude = excluded.longitude, caption = excluded.caption, labels = excluded.labels,
       thumbnail = excluded.thumbnail, error = excluded.error, indexed_at = excluded.indexed_at`,
      ),
  })
  return {
    known(userId: string): Map<string, Pick<PhotoRow, 'size' | 'mtime_ms' | 'error' | 'caption'>> {
      const rows = db.prepare('SELECT path, size, mtime_ms, error, caption FROM photos_index WHERE user_id = ?').all(userId) as Array<
        Pick<PhotoRow, 'path' | 'size' | 'mtime_ms' | 'error' | 'caption'>
      >
      return new Map(rows.map((r) => [r.path, r]))
    },
    save(row: Omit<PhotoRow, 'id'>): void {
      stmts.upsert.run({ ...row, id: randomUUID() })
    },
    removePaths(userId: string, paths: string[]): void {
      const del = db.prepare('DELETE FROM photos_index WHERE user_id = ? AND path = ?')
      db.transaction(() => paths.forEach((p) => del.run(userId, p)))()
    },
    get(userId: string, id: string): PhotoRow | undefined {
      return db.prepare('SELECT * FROM photos_index WHERE user_id = ? AND id = ?').get(userId, id) as PhotoRow | undefined
    },
    search(userId: string, q: PhotoSearch): { items: Photo[]; total: number } {
      const where = ['user_id = ?']
      const params: unknown[] = [userId]
      if (q.from) {
        where.push('taken_at >= ?')
        params.push(q.from)
      }
      if (q.to) {
        where.push('taken_at <= ?')
        params.push(q.to)
      }
      for (const word of (q.search?.normalize('NFC').match(WORD) ?? []).slice(0, 16)) {
        where.push(
          `(lower(coalesce(caption, '')) LIKE ? ESCAPE '\\' OR lower(labels) LIKE ? ESCAPE '\\' OR lower(path) LIKE ? ESCAPE '\\')`,
        )
        const like = likeOf(word)
        params.push(like, like, like)
      }
      const clause = where.join(' AND ')
      const total = (db.prepare(`SELECT count(*) AS n FROM photos_index WHERE ${clause}`).get(...params) as { n: number }).n
      const rows = db
        .prepare(`SELECT * FROM photos_index WHERE ${clause} ORDER BY taken_at DESC NULLS LAST, path LIMIT ? OFFSET ?`)
        .all(...params, q.limit, q.offset) as PhotoRow[]
      return { items: rows.map(toPhoto), total }
    },
  }
}
export type PhotoStore = ReturnType<typeof photoStore>
