import { HttpError } from '../errors.js'
import { keyActsFor, keyCeiling } from './access.js'
import type { ApiKeyRow } from './api-keys.js'
import type { AuthContext } from './context.js'
import type { UserRow, Users } from './users.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export type NamedUser = string | string[] | undefined

/**
 * Every way a caller becomes an AuthContext (bearer tokens, API keys, HTTP Basic): one builder, so
 * the role, tier and key rules are the same whichever door a request came through.
 */
export function createCallers(users: Users) {
  const context = (via: AuthContext['via'], user: UserRow | undefined, extra: Partial<AuthContext> = {}): AuthContext => ({
    via,
    userId: user?.id ?? null,
    email: user?.email ?? null,
    // Without a resolved user nothing is granted beyond a plain user's rights.
    role: user?.role ?? 'user',
    tier: users.tierOf(user ?? ({ tier: null } as UserRow)),
    ...extra,
  })

  /** The user X-Svc-User-Id names (400 when not a UUID, 404 when unknown or disabled), or undefined without one. */
  const named = (header: NamedUser): UserRow | undefined => {
    const raw = Array.isArray(header) ? header[0] : header
    if (!raw) return undefined
    if (!UUID.test(raw))
      throw new HttpError('VALIDATION_ERROR', 'X-Svc-User-Id must be a UUID', { field: 'X-Svc-User-Id', constraint: 'format' })
    const user = users.get(raw)
    if (!user || user.disabled) throw new HttpError('NOT_FOUND', 'User named by X-Svc-User-Id not found')
    return user
  }

  /** Whom an impersonating credential acts for: the named user, else the sole user; in multi-user mode nobody. */
  const impersonated = (header: NamedUser, fallback: UserRow | undefined): UserRow | undefined =>
    named(header) ?? (users.mode() === 'multi_user' ? undefined : fallback)

  /**
   * The caller behind an API key (401 when its holder is gone or disabled). A key acts for nobody
   * above its holder's role or its maker's (403), and a plain user's key only for that user (403).
   */
  const key = (row: ApiKeyRow, header: NamedUser): AuthContext => {
    const holder = users.get(row.user_id)
    if (!holder || holder.disabled) throw new HttpError('UNAUTHORIZED')
    const maker = row.created_by ? users.get(row.created_by) : undefined
    const ceiling = keyCeiling(holder.role, maker?.role)
    const impersonates = row.scope === 'system' || row.scope === 'sync'
    // A plain user's key needs no header: there is nobody else it may act for.
    const target = impersonates ? (holder.role === 'user' ? (named(header) ?? holder) : impersonated(header, holder)) : holder
    if (!target) return context('api_key', undefined, { scope: row.scope, keyId: row.id })
    const acting = keyActsFor(row, holder, ceiling, target)
    if (acting === 'forbidden') throw new HttpError('FORBIDDEN', 'This key may not act for that user')
    return context('api_key', acting, { scope: row.scope, keyId: row.id })
  }

  return { context, impersonated, key }
}
export type Callers = ReturnType<typeof createCallers>
