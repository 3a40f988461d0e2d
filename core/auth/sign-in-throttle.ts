import { clientOf } from '../client-address.js'
import { HttpError } from '../errors.js'
import { createLimiter } from '../rate-limit.js'

const FIFTEEN_MINUTES = 15 * 60 * 1000
/** A client's failures on every account together: enough for a household's few typos, not for guessing. */
const CLIENT_FACTOR = 5

/** One sign-in attempt under way: counted as a failure from the moment it began. */
export interface SignInAttempt {
  /** It failed: it stays counted (and an account's budget spent by it is logged). */
  failed(): void
  /** It succeeded: it is taken back, and this client's failures on this account are cleared. */
  succeeded(): void
  /** Neither (the secret was right, but nothing was signed in): it is taken back, nothing else. */
  cancel(): void
}

/**
 * Failed sign-ins (password logins and HTTP Basic with a key) counted per (account, client) and per
 * client (and, for second-factor codes, per account too: see accountFactor), a client being an IPv4
 * address or an IPv6 /64 (core/client-address.ts). Never per account alone: failures naming someone's
 * email from one client then lock that client out of that account, not the owner's phone elsewhere with
 * a correct key, nor their password login from home. A client past either budget is answered 429
 * before any secret is looked at, so a correct guess is not told apart.
 *
 * An attempt counts as a failure when it begins, not when its answer is known: checking a password
 * takes a trip to the thread pool, and guesses sent together would otherwise all pass the check before
 * the first failure was counted (40 at once were all checked against a budget of 10). A success is
 * taken back.
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

  return {
    /** Begins an attempt of this client on this account; throws 429 RATE_LIMITED while it may not try. */
    begin(email: string, address: string, message: string): SignInAttempt {
      const client = clientOf(address)
      const account = email.trim().toLowerCase()
      const pair = `${account}|${client}`
      const alone = accountAlone && account ? accountAlone : undefined
      for (const state of [perClient.blocked(client), perAccount.blocked(pair), ...(alone ? [alone.blocked(account)] : [])]) {
        if (state.blocked) throw new HttpError('RATE_LIMITED', message, undefined, { 'retry-after': String(state.retryAfterS) })
      }
      perClient.hit(client)
      perAccount.hit(pair)
      alone?.hit(account)
      // Whether this attempt is the one that spent the account's budget (logged if it fails).
      const spends = alone?.blocked(account).blocked ?? false
      let settled = false
      const takeBack = () => {
        perClient.undo(client)
        perAccount.undo(pair)
        alone?.undo(account)
      }
      const once = (fn: () => void) => () => {
        if (settled) return
        settled = true
        fn()
      }
      return {
        failed: once(() => {
          if (spends) opts.onAccountBlocked?.(account)
        }),
        // The account's own budget is only taken back, never cleared: the owner's right code must not
        // hand an attacker a fresh budget.
        succeeded: once(() => {
          perClient.undo(client)
          alone?.undo(account)
          perAccount.reset(pair)
        }),
        cancel: once(takeBack),
      }
    },
  }
}
export type SignInThrottle = ReturnType<typeof createSignInThrottle>
