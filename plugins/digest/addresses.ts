import { createHash, randomBytes } from 'node:crypto'
import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../core/plugin-api.js'

/**
 * Addresses a user's digest email may go to: their own account address (confirmed by being it), or
 * one confirmed through a link sent to it. A link carries a single-use token (only its hash is
 * stored) that expires after TOKEN_TTL_MS; a user asks for at most REQUESTS_PER_DAY links a day, so
 * the confirmation email itself cannot be used to flood someone.
 */
export const TOKEN_TTL_MS = 48 * 3_600_000
export const REQUESTS_PER_DAY = 5

interface Row {
  user_id: string
  address: string
  token_hash: string | null
  requested_at: string
  expires_at: string
  confirmed_at: string | null
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex')

export function addressBook(db: Database.Database, now: () => number) {
  const q = preparedOnUse(db, {
    get: () => db.prepare<[string, string], Row>('SELECT * FROM digest_addresses WHERE user_id = ? AND address = ?'),
    byToken: () => db.prepare<[string], Row>('SELECT * FROM digest_addresses WHERE token_hash = ?'),
    recent: () =>
      db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM digest_link_requests WHERE user_id = ? AND requested_at > ?'),
    logRequest: () => db.prepare<[string, string]>('INSERT INTO digest_link_requests (user_id, requested_at) VALUES (?, ?)'),
    forget: () => db.prepare<[string, string]>('DELETE FROM digest_link_requests WHERE user_id = ? AND requested_at <= ?'),
    request: () =>
      db.prepare(
        `INSERT INTO digest_addresses (user_id, address, token_hash, requested_at, expires_at, confirmed_at)
         VALUES (@user_id, @address, @token_hash, @requested_at, @expires_at, @confirmed_at)
         ON CONFLICT (user_id, address) DO UPDATE SET token_hash = excluded.token_hash, requested_at = excluded.requested_at,
           expires_at = excluded.expires_at, confirmed_at = coalesce(digest_addresses.confirmed_at, excluded.confirmed_at)`,
      ),
    confirm: () => db.prepare<[string, string]>('UPDATE digest_addresses SET confirmed_at = ?, token_hash = NULL WHERE token_hash = ?'),
  })
  const iso = (ms: number) => new Date(ms).toISOString()
  const normal = (address: string) => address.trim().toLowerCase()

  return {
    isConfirmed: (userId: string, address: string) => Boolean(q.get.get(userId, normal(address))?.confirmed_at),

    /** The account's own address: confirmed without a link. */
    own(userId: string, address: string): void {
      const at = iso(now())
      q.request.run({ user_id: userId, address: normal(address), token_hash: null, requested_at: at, expires_at: at, confirmed_at: at })
    },

    /** A new link's token for `address`, or null when the user asked for REQUESTS_PER_DAY links in the past day. */
    request(userId: string, address: string): string | null {
      const dayAgo = iso(now() - 86_400_000)
      q.forget.run(userId, dayAgo)
      if ((q.recent.get(userId, dayAgo)?.n ?? 0) >= REQUESTS_PER_DAY) return null
      q.logRequest.run(userId, iso(now()))
      const token = randomBytes(24).toString('base64url')
      q.request.run({
        user_id: userId,
        address: normal(address),
        token_hash: hash(token),
        requested_at: iso(now()),
        expires_at: iso(now() + TOKEN_TTL_MS),
        confirmed_at: null,
      })
      return token
    },

    /** Uses a link's token: the address it was sent to, or null when unknown, used or expired. */
    confirm(token: string): { userId: string; address: string } | null {
      const row = q.byToken.get(hash(token))
      if (!row || Date.parse(row.expires_at) < now()) return null
      q.confirm.run(iso(now()), hash(token))
      return { userId: row.user_id, address: row.address }
    },
  }
}

export type AddressBook = ReturnType<typeof addressBook>
