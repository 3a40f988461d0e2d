import websocket from '@fastify/websocket'
import { Type } from '@sinclair/typebox'
import { definePlugin } from '../../core/plugin-api.js'
import { createHub } from './hub.js'
import { createJournal } from './journal.js'
import { reapForeignUpgrades } from './upgrades.js'
import { MAX_MESSAGE_BYTES, wsRoutes } from './routes/ws.js'

/**
 * Realtime hub: `GET /api/v1/ws` streams the caller's own events (record
 * changes, DNS changes...) from the event bus to WebSocket clients; every
 * event message carries a `seq` and is journaled so `?since=<seq>` resumes.
 */
export default definePlugin(
  {
    name: 'realtime',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'WebSocket event stream at /api/v1/ws',
    prefix: '',
    scope: 'records',
    migrations: new URL('./migrations/', import.meta.url),
    config: Type.Object({
      maxBufferBytes: Type.Integer({ minimum: 1024, default: 1024 * 1024, env: 'HEARTH_WS_MAX_BUFFER_BYTES' }),
      pingIntervalMs: Type.Integer({ minimum: 20, default: 30_000, env: 'HEARTH_WS_PING_INTERVAL_MS' }),
      /** Events the resume journal keeps at most (the newest). */
      journalSize: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 10_000, env: 'HEARTH_REALTIME_JOURNAL_SIZE' }),
      /** Hours an event stays resumable. */
      journalAgeHours: Type.Number({ exclusiveMinimum: 0, maximum: 8760, default: 24, env: 'HEARTH_REALTIME_JOURNAL_AGE_HOURS' }),
      /** Megabytes of event messages the resume journal keeps at most (the newest); large records are journaled in brief. */
      journalMaxMb: Type.Number({ exclusiveMinimum: 0, maximum: 65_536, default: 64, env: 'HEARTH_REALTIME_JOURNAL_MAX_MB' }),
    }),
  },
  async (app, api) => {
    const { journalSize, journalAgeHours, journalMaxMb, ...hubConfig } = api.config
    const journal = createJournal(api.db, {
      size: journalSize,
      maxAgeMs: journalAgeHours * 3_600_000,
      maxBytes: Math.floor(journalMaxMb * 1024 * 1024),
      now: api.now,
      onError: (err, what) => api.log.warn({ err }, `realtime journal: ${what} refused by the database, tried again later`),
    })
    journal.trim()
    // Age is trimmed every few minutes (size also as events come in).
    const trimTimer = setInterval(() => journal.trimQuietly(), 5 * 60_000)
    trimTimer.unref()
    // Before the database closes: the queued rows are written and the stop is marked clean.
    api.onClose(() => {
      clearInterval(trimTimer)
      journal.close()
    })
    const hub = createHub({ events: api.events, log: api.log, ...hubConfig, journal, reauthenticate: api.auth.authenticate })
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
