import { HttpError } from '../errors.js'
import { verifyPassword } from './passwords.js'
import type { SecondFactor } from './second-factor.js'
import type { SignInAttempt, SignInThrottle } from './sign-in-throttle.js'
import type { Tokens } from './tokens.js'
import type { Users } from './users.js'

const wrong = (field: 'code' | 'password', what: string) => new HttpError('VALIDATION_ERROR', what, { field, constraint: 'match' })

/**
 * Turning two-factor sign-in on and off for the signed-in user. Nothing is half set: a set-up stays
 * pending (login asks nothing more) until a first code confirms it. Every step asks the password, so a
 * stolen session cannot enrol the thief's app and lock the member out; wrong passwords and codes here
 * count on the second-factor throttle as they do at sign-in.
 */
export function createTwoFactor(deps: { users: Users; tokens: Tokens; secondFactor: SecondFactor; mfaThrottle: SignInThrottle }) {
  const { secondFactor, mfaThrottle } = deps
  const user = (userId: string) => {
    const row = deps.users.get(userId)
    if (!row) throw new HttpError('NOT_FOUND', 'User not found')
    return row
  }
  /**
   * The account's password, checked under the second-factor throttle (a wrong one counts like a wrong
   * code). Answers the attempt, still counted, for the step that follows to settle.
   */
  const passwordMatches = async (userId: string, password: string, address: string): Promise<SignInAttempt> => {
    const attempt = mfaThrottle.begin(userId, address, 'Too many wrong codes; try again later')
    if (await verifyPassword(password, user(userId).password_hash)) return attempt
    attempt.failed()
    throw wrong('password', 'The password is wrong')
  }

  return {
    /** Starts a set-up: the password is asked, so a stolen session alone cannot enrol another app. */
    async setup(userId: string, password: string, address: string) {
      const attempt = await passwordMatches(userId, password, address)
      attempt.cancel()
      return secondFactor.begin(userId, user(userId).email)
    },

    /**
     * Confirms the pending set-up with a code from the app: 2FA is on, the ten recovery codes are
     * answered once, and every other session ends (it was signed in without a second factor).
     */
    async confirm(
      userId: string,
      password: string,
      code: string,
      address: string,
      sessionId: string | undefined,
    ): Promise<{ recovery_codes: string[] }> {
      const attempt = await passwordMatches(userId, password, address)
      let codes: string[] | false
      try {
        codes = secondFactor.confirm(userId, code)
      } catch (err) {
        attempt.cancel()
        throw err
      }
      if (!codes) {
        attempt.failed()
        throw wrong('code', 'The code does not match: check the app and the device clock')
      }
      attempt.succeeded()
      deps.tokens.revokeOthers(userId, sessionId)
      return { recovery_codes: codes }
    },

    /** Turns 2FA off: the password and a current code (or a recovery code) are both needed. */
    async disable(userId: string, password: string, code: string, address: string): Promise<void> {
      const row = user(userId)
      if (!secondFactor.enabled(userId)) throw new HttpError('NOT_FOUND', 'Two-factor sign-in is not on')
      const attempt = mfaThrottle.begin(userId, address, 'Too many wrong codes; try again later')
      const passwordOk = await verifyPassword(password, row.password_hash)
      if (!passwordOk || !secondFactor.verify(userId, code)) {
        attempt.failed()
        throw passwordOk ? wrong('code', 'The code does not match') : wrong('password', 'The password is wrong')
      }
      attempt.succeeded()
      secondFactor.remove(userId)
    },

    /** Whether 2FA is on and how many recovery codes are left. */
    status(userId: string) {
      const enabled = secondFactor.enabled(userId)
      return { enabled, recovery_codes_left: enabled ? secondFactor.recoveryCodesLeft(userId) : 0 }
    },
  }
}
export type TwoFactor = ReturnType<typeof createTwoFactor>
