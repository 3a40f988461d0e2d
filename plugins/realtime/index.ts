import websocket from '@fastify/websocket'
import { Type } from '@sinclair/typebox'
import { definePlugin } from '../../core/plugin-api.js'
import { createHub } from './hub.js'
import { reapForeignUpgrades } from './upgrades.js'
import { MAX_MESSAGE_BYTES, wsRoutes } from './routes/ws.js'

/**
 * Realtime hub: `GET /api/v1/ws` streams the caller's own events (record
 * changes, DNS changes...) from the event bus to WebSocket clients.
 */
export default definePlugin(
  {
    name: 'realtime',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'WebSocket event stream at /api/v1/ws',
    prefix: '',
    scope: 'records',
    config: Type.Object({
      maxBufferBytes: Type.Integer({ minimum: 1024, default: 1024 * 1024, env: 'HEARTH_WS_MAX_BUFFER_BYTES' }),
      pingIntervalMs: Type.Integer({ minimum: 20, default: 30_000, env: 'HEARTH_WS_PING_INTERVAL_MS' }),
    }),
  },
  async (app, api) => {
    const hub = createHub({ events: api.events, log: api.log, ...api.config, reauthenticate: api.auth.authenticate })
    api.errors.define('UPGRADE_REQUIRED', 426, 'This endpoint speaks WebSocket only')
    const foreign = reapForeignUpgrades(app.server, `${app.prefix}/ws`)
    // Added before @fastify/websocket's own preClose (which closes without a code): clients get 1001 "going away".
    app.addHook('preClose', async () => {
      foreign.closeAll()
      await hub.close()
    })
    await app.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES } })
    api.health.register('realtime', () => ({ status: 'ok', message: `${hub.count()} clients connected` }))
    await wsRoutes(app, hub)
  },
)
