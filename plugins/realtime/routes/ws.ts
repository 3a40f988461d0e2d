import { HttpError, type PluginInstance } from '../../../core/plugin-api.js'
import type { Hub } from '../hub.js'
import { parseConnectQuery } from '../messages.js'

/** Largest message a client may send (a subscribe list); bigger frames close the connection (1009). */
export const MAX_MESSAGE_BYTES = 16 * 1024

export async function wsRoutes(app: PluginInstance, hub: Hub) {
  // Browsers cannot set headers on a WebSocket: `?token=` stands in for the
  // Authorization header. This hook runs before the core's auth guard, and
  // only for this plugin's routes.
  app.addHook('onRequest', async (request) => {
    const token = (request.query as { token?: unknown } | undefined)?.token
    if (typeof token === 'string' && token !== '' && !request.headers.authorization) {
      request.headers.authorization = `Bearer ${token}`
    }
  })

  app.route({
    method: 'GET',
    url: '/ws',
    config: { envelope: 'none' },
    schema: { hide: true },
    // `?since=` and `?subscribe=` are checked before the upgrade: a bad value is a plain 400, not a socket.
    preHandler: async (request) => {
      const parsed = parseConnectQuery((request.query ?? {}) as Record<string, unknown>)
      if ('error' in parsed) throw new HttpError('INVALID_QUERY', parsed.error.message, parsed.error.details)
    },
    // The core guard has authenticated the upgrade request before either handler runs (401 refuses the upgrade).
    handler: async () => {
      throw new HttpError('UPGRADE_REQUIRED', 'Connect with a WebSocket client (Upgrade: websocket)')
    },
    wsHandler: (socket, request) => {
      const options = parseConnectQuery((request.query ?? {}) as Record<string, unknown>)
      hub.attach(socket, request.auth, request.headers, 'error' in options ? {} : options)
    },
  })
}
