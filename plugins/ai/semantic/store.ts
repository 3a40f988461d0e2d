/**
 * The embeddings table and the nearest-neighbour query over it. With
 * sqlite-vec loaded, SQLite ranks by vec_distance_cosine over the BLOB column;
 * otherwise a plain scan in JS does. Vectors are stored unit-length, so both
 * compute the same cosine similarity; ties are broken by type then id.
 */
import type Database from 'better-sqlite3'
import * as sqliteVec from 'sqlite-vec'
import type { SemanticType } from './text.js'
import { markVecIndexDirty, MAX_K, ownerKey, syncVecIndex, vecIndex } from './vec-index.js'
import { dot, fromBlob, roundScore, toBlob } from './vectors.js'
import { preparedOnUse } from '../../../core/plugin-api.js'

export type VectorSearchMode = 'sqlite-vec' | 'scan'

export interface Hit {
  type: SemanticType
  id: string
  score: number
}

export interface EmbeddingRow {
  type: SemanticType
  id: string
  hash: string
  vector: number[]
}

export interface VectorStore {
  readonly mode: VectorSearchMode
  /** Stored hashes of the user's embeddings of this model ('type:id' → hash). */
  hashes(userId: string, model: string): Map<string, string>
  upsert(userId: string, model: string, rows: EmbeddingRow[], at: string): void
  remove(userId: string, type: SemanticType, id: string): void
  /** Removes the user's embeddings not in `keep` ('type:id'), or of another model. */
  prune(userId: string, model: string, keep: Set<string>): number
  count(userId: string, model: string, types?: readonly SemanticType[]): number
  /** The `limit` nearest of the user's embeddings of this model, best first. */
  nearest(userId: string, model: string, query: number[], types: readonly SemanticType[], limit: number): Hit[]
  /** Similarities of given records to the query (hybrid search scores full-text hits with it). */
  scores(userId: string, model: string, query: number[], keys: Array<{ type: SemanticType; id: string }>): Map<string, number>
  removeUser(userId: string): void
}

/** Loads sqlite-vec into the handle unless told not to; the plain scan when it will not load. */
export function loadVectorExtension(db: Database.Database, wanted: 'auto' | 'scan', warn: (msg: string) => void): VectorSearchMode {
  if (wanted === 'scan') return 'scan'
  try {
    sqliteVec.load(db)
    db.prepare('SELECT vec_version()').get()
    return 'sqlite-vec'
  } catch (err) {
    warn(`sqlite-vec did not load (${(err as Error).message}); semantic search scans vectors in JS`)
    return 'scan'
  }
}

export function vectorStore(db: Database.Database, mode: VectorSearchMode): VectorStore {
  const stmts = preparedOnUse(db, {
    upsert: () =>
      db.prepare(
        `INSERT INTO ai_embeddings (user_id, type, record_id, model, dims, text_hash, vector, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (user_id, type, record_id) DO UPDATE SET model = excluded.model, dims = excluded.dims,
       text_hash = excluded.text_hash, vector = excluded.vector, updated_at = excluded.updated_at`,
      ),
    del: () => db.prepare('DELETE FROM ai_embeddings WHERE user_id = ? AND type = ? AND record_id = ?'),
    locate: () => db.prepare('SELECT rowid, dims FROM ai_embeddings WHERE user_id = ? AND type = ? AND record_id = ?'),
  })
  // With sqlite-vec, vec0 tables mirror the embeddings; without it, writes mark them stale.
  const ann = mode === 'sqlite-vec' ? vecIndex(db) : null
  if (ann) syncVecIndex(db, ann)
  let markedDirty = false
  const wrote = () => {
    if (ann || markedDirty) return
    markVecIndexDirty(db)
    markedDirty = true
  }
  const removeRow = (userId: string, type: SemanticType, id: string) => {
    const row = stmts.locate.get(userId, type, id) as { rowid: number; dims: number } | undefined
    if (!row) return
    ann?.remove(row.rowid, row.dims)
    stmts.del.run(userId, type, id)
    wrote()
  }
  const typeFilter = (types: readonly string[]) => `type IN (${types.map(() => '?').join(', ')})`

  const scanNearest = (userId: string, model: string, q: Float32Array, types: readonly SemanticType[], limit: number): Hit[] => {
    const rows = db
      .prepare(`SELECT type, record_id, vector FROM ai_embeddings WHERE user_id = ? AND model = ? AND dims = ? AND ${typeFilter(types)}`)
      .raw(true)
      .iterate(userId, model, q.length, ...types) as Iterable<[SemanticType, string, Buffer]>
    // The best `limit` so far, best first: most rows are refused by one comparison with the last.
    const top: Hit[] = []
    for (const [type, id, vector] of rows) {
      const hit = { type, id, score: roundScore(dot(q, fromBlob(vector))) }
      if (top.length === limit && byScore(hit, top[limit - 1]) >= 0) continue
      let lo = 0
      let hi = top.length
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (byScore(top[mid], hit) <= 0) lo = mid + 1
        else hi = mid
      }
      top.splice(lo, 0, hit)
      if (top.length > limit) top.pop()
    }
    return top
  }

  const vecNearest = (userId: string, model: string, q: Float32Array, types: readonly SemanticType[], limit: number): Hit[] => {
    const rows = db
      .prepare(
        `SELECT type, record_id AS id, vec_distance_cosine(vector, ?) AS distance FROM ai_embeddings
         WHERE user_id = ? AND model = ? AND dims = ? AND ${typeFilter(types)}
         ORDER BY distance, type, record_id LIMIT ?`,
      )
      .all(Buffer.from(q.buffer, q.byteOffset, q.byteLength), userId, model, q.length, ...types, limit) as Array<{
      type: SemanticType
      id: string
      distance: number
    }>
    return rows.map((r) => ({ type: r.type, id: r.id, score: roundScore(1 - r.distance) })).sort(byScore)
  }

  /** vec0's KNN, then the records' keys; scores rounded and ties ordered as the other paths do. */
  const annNearest = (userId: string, model: string, q: Float32Array, types: readonly SemanticType[], limit: number): Hit[] => {
    const near = ann!.knn(ownerKey(userId, model), Buffer.from(q.buffer, q.byteOffset, q.byteLength), q.length, types, limit)
    const keyOf = db.prepare('SELECT type, record_id FROM ai_embeddings WHERE rowid = ?')
    const hits: Hit[] = []
    for (const n of near) {
      const row = keyOf.get(n.rowid) as { type: SemanticType; record_id: string } | undefined
      if (row) hits.push({ type: row.type, id: row.record_id, score: roundScore(1 - n.distance) })
    }
    return hits.sort(byScore)
  }

  return {
    mode,
    hashes(userId, model) {
      const rows = db
        .prepare('SELECT type, record_id, text_hash FROM ai_embeddings WHERE user_id = ? AND model = ?')
        .all(userId, model) as Array<{
        type: string
        record_id: string
        text_hash: string
      }>
      return new Map(rows.map((r) => [`${r.type}:${r.record_id}`, r.text_hash]))
    },
    upsert(userId, model, rows, at) {
      db.transaction(() => {
        for (const r of rows) {
          const before = ann ? (stmts.locate.get(userId, r.type, r.id) as { rowid: number; dims: number } | undefined) : undefined
          if (before && before.dims !== r.vector.length) ann?.remove(before.rowid, before.dims)
          const blob = toBlob(r.vector)
          stmts.upsert.run(userId, r.type, r.id, model, r.vector.length, r.hash, blob, at)
          const rowid = before?.rowid ?? (stmts.locate.get(userId, r.type, r.id) as { rowid: number }).rowid
          ann?.put(rowid, ownerKey(userId, model), r.type, blob, r.vector.length)
        }
        wrote()
      })()
    },
    remove(userId, type, id) {
      db.transaction(() => removeRow(userId, type, id))()
    },
    prune(userId, model, keep) {
      const rows = db.prepare('SELECT type, record_id, model FROM ai_embeddings WHERE user_id = ?').all(userId) as Array<{
        type: SemanticType
        record_id: string
        model: string
      }>
      const gone = rows.filter((r) => r.model !== model || !keep.has(`${r.type}:${r.record_id}`))
      db.transaction(() => {
        for (const r of gone) removeRow(userId, r.type, r.record_id)
      })()
      return gone.length
    },
    count(userId, model, types) {
      const sql = `SELECT count(*) AS n FROM ai_embeddings WHERE user_id = ? AND model = ?${types ? ` AND ${typeFilter(types)}` : ''}`
      return (db.prepare(sql).get(userId, model, ...(types ?? [])) as { n: number }).n
    },
    nearest(userId, model, query, types, limit) {
      if (types.length === 0 || limit <= 0) return []
      const q = fromBlob(toBlob(query))
      if (ann && limit <= MAX_K) return annNearest(userId, model, q, types, limit)
      return mode === 'sqlite-vec' ? vecNearest(userId, model, q, types, limit) : scanNearest(userId, model, q, types, limit)
    },
    scores(userId, model, query, keys) {
      const q = fromBlob(toBlob(query))
      const get = db.prepare('SELECT vector FROM ai_embeddings WHERE user_id = ? AND type = ? AND record_id = ? AND model = ? AND dims = ?')
      const out = new Map<string, number>()
      for (const k of keys) {
        const row = get.get(userId, k.type, k.id, model, q.length) as { vector: Buffer } | undefined
        if (row) out.set(`${k.type}:${k.id}`, roundScore(dot(q, fromBlob(row.vector))))
      }
      return out
    },
    removeUser(userId) {
      const rows = db.prepare('SELECT type, record_id FROM ai_embeddings WHERE user_id = ?').all(userId) as Array<{
        type: SemanticType
        record_id: string
      }>
      db.transaction(() => rows.forEach((r) => removeRow(userId, r.type, r.record_id)))()
    },
  }
}

export function byScore(a: Pick<Hit, 'type' | 'id' | 'score'>, b: Pick<Hit, 'type' | 'id' | 'score'>): number {
  return b.score - a.score || (a.type < b.type ? -1 : a.type > b.type ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}
