import { timingSafeEqual } from 'node:crypto'
import { HttpError } from '../errors.js'
import type { ApiKeys } from './api-keys.js'
import type { Callers } from './callers.js'
import type { AuthContext } from './context.js'
import { sha256 } from './hash.js'
import type { Tokens } from './tokens.js'
import type { Users } from './users.js'

export interface CallerHeaders {
  authorization?: string | undefined
  'x-svc-user-id'?: string | string[] | undefined
}

/** The bearer token from `Authorization: Bearer <token>`, or null. */
export function bearer(header: string | undefined): string | null {
  if (!header || header.length < 8 || header.slice(0, 7).toLowerCase() !== 'bearer ') return null
  const token = header.slice(7).trim()
  return token || null
}

/**
 * Resolves a token to the caller, in the spec's detection order:
 * system token, then `clk_` API key, then JWT. Throws 401 UNAUTHORIZED for
 * anything else and 403 FORBIDDEN for a key naming a user it may not act for
 * (callers.ts); 400 USER_CONTEXT_REQUIRED is left to the guard (only routes
 * that need a user ask for one).
 *
 * The system token and API keys resolve synchronously (digest, cached rows):
 * the route guard takes that answer as it is, without a promise per request;
 * only a JWT's verification returns a promise. Whatever is thrown synchronously
 * is thrown, not returned as a rejection.
 */
export function createCallerResolver(deps: { systemToken: string; users: Users; apiKeys: ApiKeys; tokens: Tokens; callers: Callers }) {
  const systemDigest = Buffer.from(sha256(deps.systemToken), 'hex')
  const isSystemToken = (digest: string) => timingSafeEqual(Buffer.from(digest, 'hex'), systemDigest)
  // An API key is not compared with the system token (a buffer and a compare per request) unless the
  // configured token itself has the key prefix: the prefix is the keys' public format, not a secret.
  const keyMayBeSystem = deps.systemToken.startsWith('clk_')
  const { context, impersonated } = deps.callers

  return function resolveCaller(headers: CallerHeaders): AuthContext | Promise<AuthContext> {
    const token = bearer(headers.authorization)
    if (!token) throw new HttpError('UNAUTHORIZED')

    const digest = sha256(token)
    const apiKey = token.startsWith('clk_')
    if ((keyMayBeSystem || !apiKey) && isSystemToken(digest)) {
      const user = impersonated(headers['x-svc-user-id'], deps.users.soleUser())
      // The system token (the NAS OS's) keeps owner rights whoever it acts for.
      return { ...context('system_token', user), role: 'owner' }
    }

    if (apiKey) {
      const key = deps.apiKeys.lookup(token, digest)
      if (!key) throw new HttpError('UNAUTHORIZED')
      return deps.callers.key(key, headers['x-svc-user-id'])
    }

    return deps.tokens.verifyAccess(token).then((claims) => {
      const user = claims && deps.users.get(claims.sub)
      // Tokens issued before the last password change or reset are no longer honoured, nor those of a session signed out.
      if (!claims || !user || user.disabled || claims.iat * 1000 < user.password_changed_at) throw new HttpError('UNAUTHORIZED')
      const session = deps.tokens.sessionOf(digest)
      if (session?.ended) throw new HttpError('UNAUTHORIZED')
      return context('jwt', user, session ? { sessionId: session.id } : {})
    })
  }
}
export type ResolveCaller = ReturnType<typeof createCallerResolver>

/** The caller as a promise (plugins' `api.auth.authenticate`, /metrics): a synchronous throw becomes a rejection. */
export const authenticateWith =
  (resolve: ResolveCaller) =>
  async (headers: CallerHeaders): Promise<AuthContext> =>
    resolve(headers)
export type Authenticate = ReturnType<typeof authenticateWith>
