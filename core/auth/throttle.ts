import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { HttpError } from '../errors.js'
import type { Limiter } from '../rate-limit.js'

/** Per-client throttle for public endpoints that guess secrets (refresh, setup, reset, register). */
export function throttle(limiter: Limiter, name: string): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const state = limiter.hit(`${name}:${request.ip}`)
    if (!state.allowed) throw new HttpError('RATE_LIMITED', undefined, undefined, { 'retry-after': String(state.retryAfterS) })
  }
}
