import { randomBytes, randomUUID } from 'node:crypto'
import type { Db } from '../db/sqlite.js'
import type { KeyScope } from './context.js'
import { sha256 } from './hash.js'
import { preparedOnUse } from '../db/prepared-on-use.js'

export interface ApiKeyRow {
  id: string
  user_id: string
  key_hash: string
  key_prefix: string
  scope: KeyScope
  label: string | null
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
  /** The user who made the key (null: made before makers were recorded); it never acts above their role. */
  created_by: string | null
}

export const API_KEY_PATTERN = /^clk_[0-9a-f]{32}$/

const LAST_USED_EVERY_MS = 60_000

/** API keys `clk_<32 hex>`: only the SHA-256 is stored; the plaintext is returned once. */
export function createApiKeys(db: Db) {
  const q = preparedOnUse(db, {
    insert:
      'INSERT INTO api_keys (id, user_id, key_hash, key_prefix, scope, label, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    byHash: 'SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
    byId: 'SELECT * FROM api_keys WHERE id = ?',
    touch: 'UPDATE api_keys SET last_used_at = ? WHERE id = ?',
    revoke: 'UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
    mine: 'SELECT * FROM api_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY created_at DESC',
    // Optional filters as NULL-able parameters: one prepared statement serves every combination.
    listing: `SELECT * FROM api_keys WHERE (@userId IS NULL OR user_id = @userId) AND (@scope IS NULL OR scope = @scope)
       AND (@includeRevoked = 1 OR revoked_at IS NULL) ORDER BY created_at DESC`,
  })
  // last_used_at is written at most once a minute per key: a busy agent must not turn reads into writes.
  const touched = new Map<string, number>()
  // Keys resolved by hash, so a busy agent costs no query per request. This process is the
  // only writer of api_keys: revoke() evicts, and entries expire so nothing stays stale long.
  const resolved = new Map<string, { row: ApiKeyRow; until: number }>()
  // Each user's active keys, as GET /api-keys/mine lists them; emptied by every write below.
  const listed = new Map<string, ApiKeyRow[]>()
  const CACHE_MS = 30_000

  return {
    /** Stores a key; who may make which key is decided by accounts.ts, the only caller besides tests. */
    create(userId: string, scope: KeyScope, label: string | null, createdBy: string | null): { row: ApiKeyRow; key: string } {
      const key = `clk_${randomBytes(16).toString('hex')}`
      const id = randomUUID()
      q.insert.run(id, userId, sha256(key), key.slice(0, 12), scope, label, new Date().toISOString(), createdBy)
      listed.delete(userId)
      return { row: q.byId.get(id) as ApiKeyRow, key }
    },
    /** Finds an active key by its SHA-256 digest (hex). */
    lookup(key: string, digest = sha256(key)): ApiKeyRow | undefined {
      if (!API_KEY_PATTERN.test(key)) return undefined
      const now = Date.now()
      const hit = resolved.get(digest)
      let row = hit && hit.until > now ? hit.row : undefined
      if (!row) {
        row = q.byHash.get(digest) as ApiKeyRow | undefined
        if (!row) return undefined
        if (resolved.size > 10_000) resolved.clear()
        resolved.set(digest, { row, until: now + CACHE_MS })
      }
      if ((touched.get(row.id) ?? 0) + LAST_USED_EVERY_MS < now) {
        touched.set(row.id, now)
        q.touch.run(new Date(now).toISOString(), row.id)
        listed.delete(row.user_id)
      }
      return row
    },
    get: (id: string) => q.byId.get(id) as ApiKeyRow | undefined,
    list(filter: { userId?: string; scope?: KeyScope; includeRevoked?: boolean }): ApiKeyRow[] {
      // The caller's own keys are the hot path (agents poll it): one indexed statement.
      if (filter.userId && !filter.scope && !filter.includeRevoked) {
        let rows = listed.get(filter.userId)
        if (!rows) {
          rows = q.mine.all(filter.userId) as ApiKeyRow[]
          if (listed.size > 10_000) listed.clear()
          listed.set(filter.userId, rows)
        }
        return rows
      }
      return q.listing.all({
        userId: filter.userId ?? null,
        scope: filter.scope ?? null,
        includeRevoked: filter.includeRevoked ? 1 : 0,
      }) as ApiKeyRow[]
    },
    revoke(id: string): boolean {
      const row = q.byId.get(id) as ApiKeyRow | undefined
      if (row) {
        resolved.delete(row.key_hash)
        listed.delete(row.user_id)
      }
      return q.revoke.run(new Date().toISOString(), id).changes > 0
    },
  }
}
export type ApiKeys = ReturnType<typeof createApiKeys>

/** The key as the API shows it: never the hash. */
export function publicKey(row: ApiKeyRow) {
  return {
    id: row.id,
    key_prefix: row.key_prefix,
    scope: row.scope,
    label: row.label,
    user_id: row.user_id,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  }
}
