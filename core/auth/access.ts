import type { Role } from '../schemas.js'
import type { AuthContext, KeyScope, RouteScope } from './context.js'

/**
 * Who may do what: the one table every gate reads (the route guard, /metrics, the API-key rules),
 * the table docs/security.md prints and the role-table test walks over every route.
 */

/** Roles from the least to the most trusted. */
export const ROLES = ['user', 'admin', 'owner'] as const satisfies readonly Role[]
export const rank = (role: Role): number => ROLES.indexOf(role)

/** How far an API key of a scope reaches into routes of a scope: every method, reads only, or nothing. */
export type Reach = 'all' | 'read' | 'none'

/**
 * API-key scope × route scope. A user's session (and the daemon's system token) reaches every route
 * scope; its role alone decides. `dav` keys sign in to CalDAV/CardDAV (HTTP Basic) and reach no route.
 */
export const KEY_REACH: Record<RouteScope, Record<KeyScope, Reach>> = {
  records: { agent: 'all', sync: 'all', system: 'all', dav: 'none' },
  agents: { agent: 'all', sync: 'none', system: 'all', dav: 'none' },
  appliance: { agent: 'read', sync: 'none', system: 'all', dav: 'none' },
  general: { agent: 'none', sync: 'none', system: 'all', dav: 'none' },
  admin: { agent: 'none', sync: 'none', system: 'all', dav: 'none' },
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Whether the caller's API-key scope reaches a route of `routeScope` with `method`; true for every other caller. */
export function scopeAllows(auth: Pick<AuthContext, 'via' | 'scope'>, routeScope: RouteScope, method: string): boolean {
  if (auth.via !== 'api_key') return true
  const reach = KEY_REACH[routeScope][auth.scope ?? 'dav']
  return reach === 'all' || (reach === 'read' && READS.has(method))
}

/** Whether the caller's role meets a route's minimum role; the system token has owner rights. */
export function roleAllows(auth: Pick<AuthContext, 'via' | 'role'>, needed: 'admin' | 'owner' | undefined): boolean {
  if (!needed || auth.via === 'system_token') return true
  return rank(auth.role) >= rank(needed)
}

/** The role a key's rights stop at: its holder's, and its maker's when that is lower (keys made before makers were recorded have none). */
export function keyCeiling(holder: Role, maker: Role | undefined): Role {
  return maker !== undefined && rank(maker) < rank(holder) ? maker : holder
}

/**
 * Whom a key acts for, given its scope, its holder and the user X-Svc-User-Id names (undefined: none).
 * Returns the user, or 'forbidden'. Agent and DAV keys always act as their holder; system and sync
 * keys held by a plain user act only for that user; any key acts for nobody above its ceiling.
 */
export function keyActsFor<U extends { id: string; role: Role }>(
  key: { scope: KeyScope },
  holder: U,
  ceiling: Role,
  named: U | undefined,
): U | 'forbidden' {
  const acting = key.scope === 'agent' || key.scope === 'dav' || !named ? holder : named
  if (acting.id !== holder.id && rank(holder.role) < rank('admin')) return 'forbidden'
  return rank(acting.role) > rank(ceiling) ? 'forbidden' : acting
}

/**
 * Why `maker` may not make (or revoke) a key of `scope` held by `holder`, or null when they may.
 * Only an owner makes system keys; nobody makes or revokes a key for someone above themselves.
 */
export function keyManagementRefusal(maker: Role, holder: Role, scope?: KeyScope): string | null {
  if (scope === 'system' && maker !== 'owner') return 'Only an owner creates system keys'
  if (rank(holder) > rank(maker)) return 'A key for a user above your role is not yours to manage'
  return null
}
