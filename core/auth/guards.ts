import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { HttpError } from '../errors.js'
import type { Hal } from '../hal/registry.js'
import type { Limiter } from '../rate-limit.js'
import type { Authenticate } from './authenticate.js'
import type { AuthContext, RouteGuards } from './context.js'

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Whether an API key's scope reaches a route of the given scope (decisions.md, Scopes). */
export function scopeAllows(auth: AuthContext, routeScope: NonNullable<RouteGuards['scope']>, method: string): boolean {
  if (auth.via !== 'api_key') return true
  // A DAV key signs in to /dav/ only (HTTP Basic); the JSON API is closed to it.
  if (auth.scope === 'dav') return false
  switch (routeScope) {
    case 'records':
      return true
    case 'admin':
      return auth.scope === 'system'
    default:
      return auth.scope === 'system' || (auth.scope === 'agent' && READ_METHODS.has(method))
  }
}

export function roleAllows(auth: AuthContext, needed: RouteGuards['role']): boolean {
  if (!needed) return true
  if (auth.via === 'system_token') return true
  return needed === 'owner' ? auth.role === 'owner' : auth.role === 'owner' || auth.role === 'admin'
}

/** Checks capabilities: no driver of the kind → 503; the active driver lacks the flag → 422. */
export function checkRequirements(hal: Hal, requires: readonly string[] | undefined): void {
  for (const capability of requires ?? []) {
    if (hal.has(capability)) continue
    const kind = capability.split('.')[0] as string
    if (!hal.active(kind)) throw new HttpError('SERVICE_UNAVAILABLE', `No ${kind} driver is available`)
    const driver = hal.active(kind)?.name
    throw new HttpError('UNPROCESSABLE', `The ${kind} driver '${driver}' does not support ${capability}`, { capability, driver })
  }
}

/**
 * Builds the onRequest guard of one route from its declared config, once at
 * route registration: authentication, per-token rate limit, user context,
 * scope, role, tier and capabilities, in that order.
 */
export interface GuardDeps {
  authenticate: Authenticate
  limiter: Limiter
  hal: Hal
}

export function createGuard(deps: GuardDeps, guards: Readonly<RouteGuards>): onRequestAsyncHookHandler {
  const scope = guards.scope ?? 'general'
  const needsUser = guards.userContext !== false
  const kinds = [...new Set((guards.requires ?? []).map((capability) => capability.split('.')[0] as string))]
  return async function guard(request: FastifyRequest, reply: FastifyReply) {
    const auth = await deps.authenticate(request.headers)
    request.auth = auth
    request.userId = auth.userId ?? ''
    reply.header('x-svc-tier', auth.tier)

    const budget = deps.limiter.hit(auth.keyId ?? `${auth.via}:${auth.userId ?? '-'}`)
    if (!budget.allowed) throw new HttpError('RATE_LIMITED', undefined, undefined, { 'retry-after': String(budget.retryAfterS) })

    if (needsUser && !auth.userId) throw new HttpError('USER_CONTEXT_REQUIRED')
    if (!scopeAllows(auth, scope, request.method)) {
      throw new HttpError('INSUFFICIENT_SCOPE', `API key scope '${auth.scope}' does not allow this request`, { scope: auth.scope })
    }
    if (!roleAllows(auth, guards.role)) throw new HttpError('FORBIDDEN')
    if (guards.tier === 'pro' && auth.tier !== 'pro') throw new HttpError('FEATURE_NOT_AVAILABLE')
    // A driver still being detected (start-up probes run in the background) is waited for.
    if (kinds.length) await Promise.all(kinds.map((kind) => deps.hal.settled(kind)))
    checkRequirements(deps.hal, guards.requires)
  }
}
