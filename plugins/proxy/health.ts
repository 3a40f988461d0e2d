import type { HealthReport } from '../../core/plugin-api.js'
import type { ProxyService } from './service.js'

/**
 * The proxy's health: ok only while Caddy answers, serves Hearth's last push and refused none of its
 * routes. Anything else is degraded with the reason an owner can act on. Whether Caddy still serves
 * the push is asked at most once a second (`check`), so a monitoring flood costs Caddy nothing.
 */
export async function proxyHealth(service: ProxyService): Promise<HealthReport> {
  await service.check()
  const { state } = service
  if (state.reachable === false)
    return { status: 'degraded', message: `Caddy unreachable; routes are kept and pushed when it answers (${state.error})` }
  if (!state.listening) return { status: 'degraded', message: `Caddy cannot serve the routes: ${state.error}` }
  if (state.lost) return { status: 'degraded', message: `${state.lost}: pushing the routes again` }
  const enabled = service.list().filter((r) => r.enabled)
  const refused = enabled.filter((r) => r.error)
  if (refused.length)
    return {
      status: 'degraded',
      message: `Caddy refused ${refused.length} of ${enabled.length} routes (${refused[0]?.domain}: ${refused[0]?.error})`,
    }
  return { status: 'ok', message: `${enabled.length} routes served by Caddy${state.restored ? `; ${state.restored}` : ''}` }
}
