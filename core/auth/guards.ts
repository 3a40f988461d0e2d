import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify'
import { HttpError } from '../errors.js'
import type { Hal } from '../hal/registry.js'
import type { Limiter } from '../rate-limit.js'
import type { ResolveCaller } from './authenticate.js'
import { roleAllows, scopeAllows } from './access.js'
import type { AuthContext, RouteGuards } from './context.js'

/** The 403 of an API key whose scope does not reach a route. */
export const insufficientScope = (auth: Pick<AuthContext, 'scope'>) =>
  new HttpError('INSUFFICIENT_SCOPE', `API key scope '${auth.scope}' does not allow this request`, { scope: auth.scope })

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
 * route registration: authentication, per-token rate limit, key scope, user
 * context, role, tier and capabilities, in that order (the table: access.ts).
 *
 * A callback hook, not an async one: a caller resolved synchronously (system
 * token, API key) is admitted or refused in the same call, without the two
 * promises and the microtask turn per request an async guard costs; a JWT or a
 * driver still being detected continues when its promise settles. Every
 * refusal reaches the error handler through `done(err)`, as a rejection did.
 */
export interface GuardDeps {
  resolveCaller: ResolveCaller
  limiter: Limiter
  hal: Hal
}

export function createGuard(deps: GuardDeps, guards: Readonly<RouteGuards>): onRequestHookHandler {
  const scope = guards.scope ?? 'general'
  const needsUser = guards.userContext !== false
  const kinds = [...new Set((guards.requires ?? []).map((capability) => capability.split('.')[0] as string))]

  /** The refusal for this caller, or undefined when the route admits it (capabilities aside). */
  const refusal = (auth: AuthContext, request: FastifyRequest, reply: FastifyReply): HttpError | undefined => {
    request.auth = auth
    request.userId = auth.userId ?? ''
    reply.header('x-svc-tier', auth.tier)

    const budget = deps.limiter.hit(auth.keyId ?? `${auth.via}:${auth.userId ?? '-'}`)
    if (!budget.allowed) return new HttpError('RATE_LIMITED', undefined, undefined, { 'retry-after': String(budget.retryAfterS) })

    // A key's scope is judged first: a key that never reaches the route learns nothing more about it.
    if (!scopeAllows(auth, scope, request.method)) return insufficientScope(auth)
    if (needsUser && !auth.userId) return new HttpError('USER_CONTEXT_REQUIRED')
    if (!roleAllows(auth, guards.role)) return new HttpError('FORBIDDEN')
    if (guards.tier === 'pro' && auth.tier !== 'pro') return new HttpError('FEATURE_NOT_AVAILABLE')
    return undefined
  }

  const requirements = (done: HookHandlerDoneFunction) => {
    try {
      checkRequirements(deps.hal, guards.requires)
    } catch (err) {
      return done(err as HttpError)
    }
    done()
  }

  // `done` is called outside every try: it runs the rest of the request, whose throws are not the guard's.
  const admit = (auth: AuthContext, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    let refused: HttpError | undefined
    try {
      refused = refusal(auth, request, reply)
    } catch (err) {
      return done(err as Error)
    }
    if (refused) return done(refused)
    if (!kinds.length) return done()
    // A driver still being detected (start-up probes run in the background) is waited for.
    // Started inside the chain: a throw from `settled` becomes a refusal, not an unhandled rejection (on a
    // JWT's path this runs in a promise callback, where nothing would catch it).
    Promise.resolve()
      .then(() => Promise.all(kinds.map((kind) => deps.hal.settled(kind))))
      .then(
        () => requirements(done),
        (err: Error) => done(err),
      )
  }

  return function guard(request, reply, done) {
    let caller: AuthContext | Promise<AuthContext>
    try {
      caller = deps.resolveCaller(request.headers)
    } catch (err) {
      return done(err as Error)
    }
    if (caller instanceof Promise) {
      caller.then(
        (auth) => admit(auth, request, reply, done),
        (err: Error) => done(err),
      )
      return
    }
    admit(caller, request, reply, done)
  }
}
