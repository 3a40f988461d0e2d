import { clientOf } from '../client-address.js'
import { HttpError } from '../errors.js'
import { createLimiter } from '../rate-limit.js'

const FIFTEEN_MINUTES = 15 * 60 * 1000
/** A client's failures on every account together: enough for a household's few typos, not for guessing. */
const CLIENT_FACTOR = 5

/**
 * Failed sign-ins (password logins and HTTP Basic with a key) counted per (account, client) and per
 * client (and, for second-factor codes, per account too: see accountFactor), a client being an IPv4 address or an IPv6 /64 (core/client-address.ts). Never per account
 * alone: failures naming someone's email from one client then lock that client out of that account, not
 * the owner's phone elsewhere with a correct key, nor their password login from home. A client past
 * either budget is answered 429 before any secret is looked at, so a correct guess is not told apart.
 */
export function createSignInThrottle(opts: {
  failLimit: number
  now?: () => number
  /**
   * Also a budget per account across every client (failLimit times this): for secrets too small to
   * survive many clients each spending their own budget (a 6-digit code). It locks the owner out for
   * the window too, which is why password sign-ins do not use it.
   */
  accountFactor?: number
  /** Called once when an account's own budget is spent (to log it). */
  onAccountBlocked?: (account: string) => void
}) {
  const now = opts.now ?? Date.now
  const perAccount = createLimiter({ max: opts.failLimit, windowMs: FIFTEEN_MINUTES, now })
  const perClient = createLimiter({ max: opts.failLimit * CLIENT_FACTOR, windowMs: FIFTEEN_MINUTES, now })
  const accountFactor = opts.accountFactor
  const accountAlone = accountFactor ? createLimiter({ max: opts.failLimit * accountFactor, windowMs: FIFTEEN_MINUTES, now }) : undefined
  const accountKey = (email: string) => email.trim().toLowerCase()
  const keys = (email: string, address: string) => {
    const client = clientOf(address)
    return { client, pair: `${email.trim().toLowerCase()}|${client}` }
  }

  return {
    /** Throws 429 RATE_LIMITED while this client may not try this account. */
    check(email: string, address: string, message: string): void {
      const { client, pair } = keys(email, address)
      const alone = accountAlone && email ? [accountAlone.blocked(accountKey(email))] : []
      for (const state of [perClient.blocked(client), perAccount.blocked(pair), ...alone]) {
        if (state.blocked) throw new HttpError('RATE_LIMITED', message, undefined, { 'retry-after': String(state.retryAfterS) })
      }
    },
    failed(email: string, address: string): void {
      const { client, pair } = keys(email, address)
      perClient.hit(client)
      perAccount.hit(pair)
      if (!accountAlone || !email) return
      const key = accountKey(email)
      const wasBlocked = accountAlone.blocked(key).blocked
      // Not cleared by a success: the owner's right code must not hand an attacker a fresh budget.
      accountAlone.hit(key)
      if (!wasBlocked && accountAlone.blocked(key).blocked) opts.onAccountBlocked?.(key)
    },
    /** A success clears this client's failures on this account (its failures on others still count). */
    succeeded(email: string, address: string): void {
      perAccount.reset(keys(email, address).pair)
    },
  }
}
export type SignInThrottle = ReturnType<typeof createSignInThrottle>
