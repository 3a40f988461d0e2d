import { timingSafeEqual } from 'node:crypto'
import { HttpError } from '../errors.js'
import type { Tier } from '../schemas.js'
import type { ApiKeys } from './api-keys.js'
import type { AuthContext } from './context.js'
import { sha256 } from './hash.js'
import type { Tokens } from './tokens.js'
import type { UserRow, Users } from './users.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

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
 * anything else, 400 USER_CONTEXT_REQUIRED is left to the guard (only routes
 * that need a user ask for one).
 *
 * The system token and API keys resolve synchronously (digest, cached rows):
 * the route guard takes that answer as it is, without a promise per request;
 * only a JWT's verification returns a promise. Whatever is thrown synchronously
 * is thrown, not returned as a rejection.
 */
export function createCallerResolver(deps: { systemToken: string; users: Users; apiKeys: ApiKeys; tokens: Tokens }) {
  const systemDigest = Buffer.from(sha256(deps.systemToken), 'hex')
  const isSystemToken = (digest: string) => timingSafeEqual(Buffer.from(digest, 'hex'), systemDigest)
  // An API key is not compared with the system token (a buffer and a compare per request) unless the
  // configured token itself has the key prefix: the prefix is the keys' public format, not a secret.
  const keyMayBeSystem = deps.systemToken.startsWith('clk_')

  const context = (via: AuthContext['via'], user: UserRow | undefined, extra: Partial<AuthContext> = {}): AuthContext => ({
    via,
    userId: user?.id ?? null,
    email: user?.email ?? null,
    // Without a resolved user nothing is granted beyond a plain user's rights.
    role: user?.role ?? 'user',
    tier: user ? deps.users.tierOf(user) : (deps.users.tierOf({ tier: null } as UserRow) as Tier),
    ...extra,
  })

  /** Impersonation target from X-Svc-User-Id, the sole user, or nothing (multi-user without header). */
  const impersonated = (headerValue: CallerHeaders['x-svc-user-id'], fallback: UserRow | undefined): UserRow | undefined => {
    const raw = Array.isArray(headerValue) ? headerValue[0] : headerValue
    if (raw) {
      if (!UUID.test(raw))
        throw new HttpError('VALIDATION_ERROR', 'X-Svc-User-Id must be a UUID', { field: 'X-Svc-User-Id', constraint: 'format' })
      const user = deps.users.get(raw)
      if (!user || user.disabled) throw new HttpError('NOT_FOUND', 'User named by X-Svc-User-Id not found')
      return user
    }
    return deps.users.mode() === 'multi_user' ? undefined : fallback
  }

  return function resolveCaller(headers: CallerHeaders): AuthContext | Promise<AuthContext> {
    const token = bearer(headers.authorization)
    if (!token) throw new HttpError('UNAUTHORIZED')

    const digest = sha256(token)
    const apiKey = token.startsWith('clk_')
    if ((keyMayBeSystem || !apiKey) && isSystemToken(digest)) {
      const user = impersonated(headers['x-svc-user-id'], deps.users.soleUser())
      // The system token keeps owner rights whoever it acts for.
      return { ...context('system_token', user), role: 'owner' }
    }

    if (apiKey) {
      const key = deps.apiKeys.lookup(token, digest)
      const owner = key && deps.users.get(key.user_id)
      if (!key || !owner || owner.disabled) throw new HttpError('UNAUTHORIZED')
      // A DAV key is a password for CalDAV/CardDAV clients: as a bearer token it reaches nothing.
      if (key.scope === 'dav')
        throw new HttpError('INSUFFICIENT_SCOPE', "API key scope 'dav' does not allow this request", { scope: key.scope })
      const acting = key.scope === 'agent' ? owner : impersonated(headers['x-svc-user-id'], owner)
      return context('api_key', acting, { scope: key.scope, keyId: key.id })
    }

    return deps.tokens.verifyAccess(token).then((claims) => {
      const user = claims && deps.users.get(claims.sub)
      // Tokens issued before the last password change or reset are no longer honoured.
      if (!claims || !user || user.disabled || claims.iat * 1000 < user.password_changed_at) throw new HttpError('UNAUTHORIZED')
      return context('jwt', user)
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
