import { randomBytes } from 'node:crypto'

/** How long a ceremony's challenge stays good: the browser's own timeout is shorter (PASSKEY_TIMEOUT_MS). */
const TTL_MS = 5 * 60_000
/** The browser is told to give up after this long. */
export const PASSKEY_TIMEOUT_MS = 120_000
/** Challenges kept at once: past this the oldest go (anyone may ask for sign-in options). */
const MAX_PENDING = 10_000
/** Challenges one client (an IPv4 address, an IPv6 /64) holds at once: past this its own oldest go, not others'. */
const PER_CLIENT = 32

export type Ceremony = 'register' | 'login'

interface Pending {
  client: string
  ceremony: Ceremony
  /** Whose registration, or the account a sign-in was asked for by email (null: any passkey). */
  userId: string | null
  until: number
}

/**
 * The challenges Hearth handed out for passkey ceremonies, kept in memory: 32 random bytes, base64url,
 * good for one answer of the ceremony they were made for, within five minutes. Taking one spends it,
 * whether the answer then verifies or not, so a response (or a tampered copy) is never checked twice
 * against the same challenge. A restart only asks the member to press the button again.
 */
export function createPasskeyChallenges(now: () => number) {
  const pending = new Map<string, Pending>()
  /** Each client's pending challenges, oldest first. */
  const byClient = new Map<string, string[]>()

  const drop = (challenge: string) => {
    const entry = pending.get(challenge)
    if (!entry) return
    pending.delete(challenge)
    const mine = byClient.get(entry.client)
    const at = mine?.indexOf(challenge) ?? -1
    if (mine && at >= 0) mine.splice(at, 1)
    if (mine?.length === 0) byClient.delete(entry.client)
  }

  const makeRoom = (t: number) => {
    for (const [k, v] of pending) if (v.until <= t) drop(k)
    // Still full: the oldest go (a Map iterates in insertion order).
    for (const k of pending.keys()) {
      if (pending.size < MAX_PENDING) break
      drop(k)
    }
  }

  return {
    /** A new challenge for `client` (clientOf of its address): one client flooding the options route evicts only its own. */
    issue(ceremony: Ceremony, userId: string | null, client: string): string {
      const t = now()
      const mine = byClient.get(client)
      if (mine && mine.length >= PER_CLIENT) drop(mine[0] as string)
      if (pending.size >= MAX_PENDING) makeRoom(t)
      const challenge = randomBytes(32).toString('base64url')
      pending.set(challenge, { client, ceremony, userId, until: t + TTL_MS })
      byClient.set(client, [...(byClient.get(client) ?? []), challenge])
      return challenge
    },
    /** Spends the challenge; answers whom it was issued for, or undefined when it is unknown, spent, expired or of another ceremony. */
    take(challenge: string, ceremony: Ceremony): { userId: string | null } | undefined {
      const entry = pending.get(challenge)
      if (!entry) return undefined
      drop(challenge)
      return entry.ceremony === ceremony && entry.until > now() ? { userId: entry.userId } : undefined
    },
  }
}
export type PasskeyChallenges = ReturnType<typeof createPasskeyChallenges>
