/**
 * sqlite-vec's vec0 tables beside ai_embeddings: one per dimension count
 * (ai_vec_<dims>, cosine distance), the user and model as partition key, the
 * record type as a metadata column, rowids those of ai_embeddings. A KNN query
 * there reads contiguous float chunks instead of every row's BLOB: at 100,000
 * vectors of 384 dimensions about 80 ms instead of 300 ms here (README, Bench).
 */
import type Database from 'better-sqlite3'

/** vec0's largest k. */
export const MAX_K = 4096

export const ownerKey = (userId: string, model: string) => `${userId}\u0000${model}`

export interface VecIndex {
  put(rowid: number, owner: string, type: string, vector: Buffer, dims: number): void
  remove(rowid: number, dims: number): void
  /** Nearest rowids by cosine distance; [] when no vector of that size exists. */
  knn(owner: string, query: Buffer, dims: number, types: readonly string[], k: number): Array<{ rowid: number; distance: number }>
}

export function vecIndex(db: Database.Database): VecIndex {
  const table = (dims: number) => {
    if (!Number.isInteger(dims) || dims < 1 || dims > 65_536) throw new Error(`bad dimension count ${dims}`)
    return `ai_vec_${dims}`
  }
  const exists = (dims: number) =>
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table(dims)) !== undefined
  const ensure = (dims: number) =>
    db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${table(dims)} USING vec0(owner text partition key, embedding float[${dims}] distance_metric=cosine, type text)`,
    )
  return {
    put(rowid, owner, type, vector, dims) {
      ensure(dims)
      db.prepare(`DELETE FROM ${table(dims)} WHERE rowid = ?`).run(BigInt(rowid))
      db.prepare(`INSERT INTO ${table(dims)} (rowid, owner, embedding, type) VALUES (?, ?, ?, ?)`).run(BigInt(rowid), owner, vector, type)
    },
    remove(rowid, dims) {
      if (exists(dims)) db.prepare(`DELETE FROM ${table(dims)} WHERE rowid = ?`).run(BigInt(rowid))
    },
    knn(owner, query, dims, types, k) {
      if (!exists(dims)) return []
      const rows = db
        .prepare(
          `SELECT rowid, distance FROM ${table(dims)} WHERE embedding MATCH ? AND k = ? AND owner = ? AND type IN (${types.map(() => '?').join(', ')})`,
        )
        .all(query, k, owner, ...types) as Array<{ rowid: number | bigint; distance: number }>
      return rows.map((r) => ({ rowid: Number(r.rowid), distance: r.distance }))
    },
  }
}

/** Rebuilds the vec0 tables from ai_embeddings when they may be stale (written without the extension). */
export function syncVecIndex(db: Database.Database, index: VecIndex): void {
  const dirty = db.prepare("SELECT value FROM ai_vector_meta WHERE key = 'dirty'").get() as { value: string } | undefined
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'ai_vec_[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
    .all() as Array<{
    name: string
  }>
  const rows = (db.prepare('SELECT count(*) AS n FROM ai_embeddings').get() as { n: number }).n
  if (dirty?.value !== '1' && (tables.length > 0 || rows === 0)) return
  db.transaction(() => {
    for (const t of tables) db.exec(`DROP TABLE ${t.name}`)
    // Pages by rowid: better-sqlite3 runs no other statement while an iterator is open.
    const page = db.prepare('SELECT rowid, user_id, model, type, dims, vector FROM ai_embeddings WHERE rowid > ? ORDER BY rowid LIMIT 2000')
    for (let last = 0; ;) {
      const rows = page.all(last) as Array<{ rowid: number; user_id: string; model: string; type: string; dims: number; vector: Buffer }>
      if (rows.length === 0) break
      for (const r of rows) index.put(r.rowid, ownerKey(r.user_id, r.model), r.type, r.vector, r.dims)
      last = rows[rows.length - 1].rowid
    }
    db.prepare("INSERT INTO ai_vector_meta (key, value) VALUES ('dirty', '0') ON CONFLICT (key) DO UPDATE SET value = '0'").run()
  })()
}

/** In scan mode: note that the vec0 tables (if any) no longer match. */
export function markVecIndexDirty(db: Database.Database): void {
  db.prepare("INSERT INTO ai_vector_meta (key, value) VALUES ('dirty', '1') ON CONFLICT (key) DO UPDATE SET value = '1'").run()
}
