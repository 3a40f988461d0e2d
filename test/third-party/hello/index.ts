/**
 * The example third-party plugin of docs/plugins.md: a route, a migration,
 * a config slice, and a reaction to an event published by the core.
 * Loaded in tests from HEARTH_PLUGINS_DIR, exactly as an author's plugin is.
 */
import { Type } from '@sinclair/typebox'
import { definePlugin, ListOf } from '../../../core/plugin-api.js'

const Greeting = Type.Object({ id: Type.Integer(), text: Type.String(), created_at: Type.String() })

export default definePlugin(
  {
    name: 'hello',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'Says hello and counts the users it has seen join',
    migrations: new URL('./migrations/', import.meta.url),
    config: Type.Object({ greeting: Type.String({ default: 'Hello', env: 'HEARTH_HELLO_GREETING' }) }),
  },
  async (app, api) => {
    let usersSeen = 0
    api.events.on('user.created', () => {
      usersSeen++
    })
    const insert = api.db.prepare('INSERT INTO hello_greetings (user_id, text, created_at) VALUES (?, ?, ?)')
    const list = api.db.prepare('SELECT id, text, created_at FROM hello_greetings WHERE user_id = ? ORDER BY id LIMIT ? OFFSET ?')
    const count = api.db.prepare('SELECT COUNT(*) AS n FROM hello_greetings WHERE user_id = ?')

    app.get('/', { schema: { response: { 200: Type.Object({ greeting: Type.String(), users_seen: Type.Integer() }) } } }, async () => ({
      greeting: api.config.greeting,
      users_seen: usersSeen,
    }))

    app.post(
      '/greetings',
      {
        schema: {
          body: Type.Object({ text: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false }),
          // A slow write, so tests can stop the daemon while a request is in flight.
          querystring: Type.Object({ delay_ms: Type.Integer({ minimum: 0, maximum: 5000, default: 0 }) }),
          response: { 201: Greeting },
        },
      },
      async (req, reply) => {
        if (req.query.delay_ms) await new Promise((r) => setTimeout(r, req.query.delay_ms))
        const result = insert.run(req.auth.userId, req.body.text, new Date().toISOString())
        reply.code(201)
        return { id: Number(result.lastInsertRowid), text: req.body.text, created_at: new Date().toISOString() }
      },
    )

    app.get(
      '/greetings',
      {
        config: { envelope: 'list' },
        schema: {
          querystring: Type.Object({
            limit: Type.Integer({ minimum: 1, maximum: 200, default: 20 }),
            offset: Type.Integer({ minimum: 0, default: 0 }),
          }),
          response: { 200: ListOf(Greeting) },
        },
      },
      async (req) => ({
        items: list.all(req.auth.userId, req.query.limit, req.query.offset) as Array<{ id: number; text: string; created_at: string }>,
        total: (count.get(req.auth.userId) as { n: number }).n,
      }),
    )

    app.get('/pro', { config: { tier: 'pro' } }, async () => ({ secret: 'pro feature' }))
    app.get('/needs-widget', { config: { requires: ['widget.canSpin'] } }, async () => ({ spun: true }))
    app.get('/boom', async () => {
      throw new Error('database password is hunter2')
    })
  },
)
