import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify'
import { HttpError } from '../errors.js'
import type { Limiter } from '../rate-limit.js'
import { clientOf } from '../client-address.js'

/** Per-client (an IPv4 address, an IPv6 /64) throttle for public endpoints that guess secrets (refresh, setup, reset, register). */
export function throttle(limiter: Limiter, name: string): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const state = limiter.hit(`${name}:${clientOf(request.ip)}`)
    if (!state.allowed) throw new HttpError('RATE_LIMITED', undefined, undefined, { 'retry-after': String(state.retryAfterS) })
  }
}
