import { HttpError } from '../errors.js'
import type { ApiKeys } from './api-keys.js'
import type { Callers } from './callers.js'
import type { AuthContext, KeyScope } from './context.js'
import type { SignInThrottle } from './sign-in-throttle.js'
import type { Users } from './users.js'

/** What a client answering 401 is told: sign in with HTTP Basic. */
export const BASIC_CHALLENGE = { 'www-authenticate': 'Basic realm="Hearth"' }

const MAX_HEADER = 1024

/**
 * HTTP Basic sign-in for protocols whose clients know no bearer tokens (CalDAV, CardDAV):
 * user name = the user's email, password = an API key of `scope` owned by that user.
 * Failures count like failed logins (per client and per account from that client) and, once the
 * budget is spent, answer 429 before any key is looked at.
 */
export function createBasicAuth(deps: { users: Users; apiKeys: ApiKeys; signIns: SignInThrottle; callers: Callers }) {
  const refuse = () => new HttpError('UNAUTHORIZED', 'Sign in with your email and an API key', undefined, BASIC_CHALLENGE)

  return function basic(authorization: string | undefined, client: string, scope: KeyScope): AuthContext {
    if (!authorization || authorization.length > MAX_HEADER || authorization.slice(0, 6).toLowerCase() !== 'basic ') throw refuse()
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const email = colon > 0 ? decoded.slice(0, colon).trim().toLowerCase() : ''
    const password = colon > 0 ? decoded.slice(colon + 1) : ''
    const attempt = deps.signIns.begin(email, client, 'Too many failed sign-ins; try again later')
    const key = password ? deps.apiKeys.lookup(password) : undefined
    const user = key ? deps.users.get(key.user_id) : undefined
    if (!key || key.scope !== scope || !user || user.disabled || user.email.toLowerCase() !== email) {
      attempt.failed()
      throw refuse()
    }
    attempt.succeeded()
    return deps.callers.key(key, undefined)
  }
}
export type BasicAuth = ReturnType<typeof createBasicAuth>
