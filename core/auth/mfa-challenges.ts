import { randomToken, sha256 } from './hash.js'

/** The methods a second-factor step accepts. */
export const MFA_METHODS = ['totp', 'recovery_code'] as const

const TTL_MS = 5 * 60_000
/** Wrong codes one challenge takes before it is spent: the password must then be given again. */
const MAX_ATTEMPTS = 5
const MAX_PENDING = 10_000

/**
 * The half-done sign-ins: a password was right, the second factor is awaited. The token (`hmf_…`) says
 * which user and expires in five minutes or after five wrong codes. Kept in memory (the key is its
 * SHA-256): a restart only asks for the password again.
 */
export function createMfaChallenges(now: () => number) {
  const pending = new Map<string, { userId: string; until: number; attempts: number }>()

  const sweep = (t: number) => {
    for (const [k, v] of pending) if (v.until <= t) pending.delete(k)
    // Still full: the oldest go (a Map iterates in insertion order).
    for (const k of pending.keys()) {
      if (pending.size < MAX_PENDING) break
      pending.delete(k)
    }
  }

  return {
    issue(userId: string): string {
      const t = now()
      if (pending.size >= MAX_PENDING) sweep(t)
      const token = randomToken('hmf_')
      pending.set(sha256(token), { userId, until: t + TTL_MS, attempts: 0 })
      return token
    },
    /** The user a live challenge is for, or undefined. */
    userOf(token: string): string | undefined {
      const entry = pending.get(sha256(token))
      return entry && entry.until > now() ? entry.userId : undefined
    },
    /** One wrong code against the challenge; the fifth spends it. */
    failed(token: string): void {
      const key = sha256(token)
      const entry = pending.get(key)
      if (entry && ++entry.attempts >= MAX_ATTEMPTS) pending.delete(key)
    },
    /** The challenge is answered: it works once. */
    spend(token: string): void {
      pending.delete(sha256(token))
    },
  }
}
export type MfaChallenges = ReturnType<typeof createMfaChallenges>
