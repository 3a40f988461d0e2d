import { randomUUID } from 'node:crypto'
import type { Db } from '../db/sqlite.js'
import type { Role } from '../schemas.js'

// jose is loaded on the first token operation: a daemon that only serves API keys never pays for it at start.
let jose: Promise<typeof import('jose')> | undefined
const loadJose = () => (jose ??= import('jose'))
import { randomToken, sha256 } from './hash.js'
import { preparedOnUse } from '../db/prepared-on-use.js'

export const ACCESS_TTL_S = 24 * 3600
/** Verified access tokens kept in memory, the least recently used dropped first. */
const VERIFIED_KEPT = 1024
export const REFRESH_TTL_S = 30 * 24 * 3600

export interface AccessClaims {
  sub: string
  email: string
  role: Role
  iat: number
  exp: number
}

/** The client a session was issued to, as the sessions list shows it. */
export interface ClientInfo {
  userAgent?: string | undefined
  address?: string | undefined
}

export interface SessionRow {
  id: string
  created_at: number
  last_used_at: number
  client: string | null
  address: string | null
}

export interface TokenPair {
  accessToken: string
  refreshToken: string
}

export type RefreshOutcome =
  { ok: true; userId: string; familyId: string } | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' }

/**
 * Access tokens are HS256 JWTs; refresh tokens are opaque random strings
 * stored as SHA-256 hashes, grouped in families so that presenting an
 * already-rotated token revokes the whole family (reuse detection).
 */
export function createTokens(
  db: Db,
  secret: string,
  /**
   * Told when sessions of a user end (`sessionId` null: several at once), so that what a session keeps
   * open beyond its requests (a WebSocket) closes at once instead of at its next re-check.
   */
  onEnded: (userId: string, sessionId: string | null) => void = () => {},
) {
  const key = new TextEncoder().encode(secret)
  const q = preparedOnUse(db, {
    insert: `INSERT INTO refresh_tokens (id, user_id, family_id, token_hash, expires_at, created_at, client, address, access_hash)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    find: 'SELECT * FROM refresh_tokens WHERE token_hash = ?',
    markUsed: 'UPDATE refresh_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL',
    revokeFamily: 'UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL',
    revokeUser: 'UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL',
    purge: 'DELETE FROM refresh_tokens WHERE expires_at < ?',
    // Revoking a session marks every row of its family: the row its access token was issued with included.
    byAccess: 'SELECT family_id, revoked_at FROM refresh_tokens WHERE access_hash = ?',
    revokeOthers: 'UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND family_id != ? AND revoked_at IS NULL',
    revokeOwnFamily: 'UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND family_id = ? AND revoked_at IS NULL',
    // A session is a family with a token still usable; its client is the one that used it last.
    sessions: `SELECT f.family_id AS id, f.created_at, f.last_used_at, t.client, t.address FROM (
        SELECT family_id, MIN(created_at) AS created_at, MAX(created_at) AS last_used_at FROM refresh_tokens
        WHERE user_id = ? GROUP BY family_id
        HAVING SUM(revoked_at IS NULL AND used_at IS NULL AND expires_at >= ?) > 0) f
      JOIN refresh_tokens t ON t.family_id = f.family_id AND t.used_at IS NULL AND t.revoked_at IS NULL
      ORDER BY f.last_used_at DESC`,
  })

  const nowS = () => Math.floor(Date.now() / 1000)
  // A token's signature is checked once: jose verifies HS256 through WebCrypto, a trip to the thread pool
  // and back that was a sixth of a signed-in write's time. What a verification says of a token string
  // changes only when it expires (checked on every use); sessions ended since are checked per request by
  // the caller (sessionOf), as before. Memory only, bounded.
  const verified = new Map<string, AccessClaims>()

  const issueRefresh = (userId: string, familyId: string, client: ClientInfo, accessToken: string): string => {
    const token = randomToken('hrt_')
    const userAgent = client.userAgent ? client.userAgent.slice(0, 200) : null
    const row = [randomUUID(), userId, familyId, sha256(token), nowS() + REFRESH_TTL_S, nowS(), userAgent, client.address ?? null]
    q.insert.run(...row, sha256(accessToken))
    return token
  }

  const signAccess = async (user: { id: string; email: string; role: Role }, iat = Date.now() / 1000) =>
    // iat keeps millisecond precision (RFC 7519 allows non-integer NumericDate) so a
    // password change revokes tokens issued even in the same second, but not the new session's.
    new (await loadJose()).SignJWT({ email: user.email, role: user.role, iat })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(user.id)
      .setExpirationTime(iat + ACCESS_TTL_S)
      .sign(key)

  return {
    async issue(
      user: { id: string; email: string; role: Role },
      familyId: string = randomUUID(),
      client: ClientInfo = {},
    ): Promise<TokenPair> {
      const accessToken = await signAccess(user)
      return { accessToken, refreshToken: issueRefresh(user.id, familyId, client, accessToken) }
    },
    /**
     * The session an access token (by its SHA-256, hex) was issued in, and whether it was signed out
     * since (logout, revocation, reuse, a password change): its access tokens stop with it. Undefined for
     * tokens issued before sessions were recorded.
     */
    sessionOf(accessDigest: string): { id: string; ended: boolean } | undefined {
      const row = q.byAccess.get(accessDigest) as { family_id: string; revoked_at: number | null } | undefined
      return row && { id: row.family_id, ended: row.revoked_at !== null }
    },
    /** The user's sessions still able to refresh, the most recently used first. */
    sessions: (userId: string): SessionRow[] => q.sessions.all(userId, nowS()) as SessionRow[],
    /** Signs one of the user's sessions out; false when it is not theirs or already ended. */
    revokeSession(userId: string, familyId: string): boolean {
      const ended = q.revokeOwnFamily.run(nowS(), userId, familyId).changes > 0
      if (ended) onEnded(userId, familyId)
      return ended
    },
    /** Signs out every session of the user but `keep` (the caller's). */
    revokeOthers(userId: string, keep: string | undefined): void {
      if (keep) q.revokeOthers.run(nowS(), userId, keep)
      else q.revokeUser.run(nowS(), userId)
      onEnded(userId, null)
    },
    async verifyAccess(token: string): Promise<AccessClaims | null> {
      const kept = verified.get(token)
      if (kept) {
        verified.delete(token)
        // As jose judges it: a token whose exp is now or past has expired.
        if (kept.exp <= Date.now() / 1000) return null
        verified.set(token, kept)
        return kept
      }
      try {
        const { payload } = await (await loadJose()).jwtVerify(token, key, { algorithms: ['HS256'] })
        if (typeof payload.sub !== 'string' || typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return null
        const claims = payload as unknown as AccessClaims
        verified.set(token, claims)
        if (verified.size > VERIFIED_KEPT) verified.delete(verified.keys().next().value as string)
        return claims
      } catch {
        return null
      }
    },
    /** Consumes a refresh token: valid once; a second use revokes its family. */
    consumeRefresh(token: string): RefreshOutcome {
      const row = q.find.get(sha256(token)) as
        | { id: string; user_id: string; family_id: string; expires_at: number; used_at: number | null; revoked_at: number | null }
        | undefined
      if (!row) return { ok: false, reason: 'unknown' }
      if (row.revoked_at) return { ok: false, reason: 'revoked' }
      const reused = (): RefreshOutcome => {
        q.revokeFamily.run(nowS(), row.family_id)
        onEnded(row.user_id, row.family_id)
        return { ok: false, reason: 'reused' }
      }
      if (row.used_at) return reused()
      if (row.expires_at < nowS()) return { ok: false, reason: 'expired' }
      if (q.markUsed.run(nowS(), row.id).changes === 0) return reused()
      return { ok: true, userId: row.user_id, familyId: row.family_id }
    },
    /** Logout: the token's family stops working. */
    revoke(token: string): boolean {
      const row = q.find.get(sha256(token)) as { family_id: string; user_id: string; revoked_at: number | null } | undefined
      // A token already revoked ends nothing more: its session may have gone on with new tokens (a password change).
      if (!row || row.revoked_at) return false
      if (q.revokeFamily.run(nowS(), row.family_id).changes > 0) onEnded(row.user_id, row.family_id)
      return true
    },
    revokeAllForUser(userId: string): void {
      q.revokeUser.run(nowS(), userId)
      onEnded(userId, null)
    },
    purgeExpired(): void {
      q.purge.run(nowS())
    },
  }
}
export type Tokens = ReturnType<typeof createTokens>
