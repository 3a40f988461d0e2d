import { HttpError } from '../../errors.js'
import type { PluginInstance } from '../../plugin-api.js'
import { everything, IdParams, ListOf, Single } from '../../schemas.js'
import { publicKey } from '../api-keys.js'
import { ApiKey, CreatedApiKey, CreateKeyBody, KeyListQuery } from '../schemas.js'
import type { AuthRoutesOptions } from './index.js'

export async function apiKeyRoutes(app: PluginInstance, { apiKeys, users, events }: AuthRoutesOptions) {
  const admin = { role: 'admin', scope: 'admin' } as const

  app.post(
    '/admin/api-keys',
    {
      config: admin,
      schema: {
        summary: 'Create an API key',
        description: 'The key itself is in this answer only; Hearth keeps its SHA-256 hash.',
        body: CreateKeyBody,
        response: { 201: Single(CreatedApiKey) },
      },
    },
    async (req, reply) => {
      const userId = req.body.user_id ?? req.auth.userId
      if (!userId)
        throw new HttpError('VALIDATION_ERROR', 'user_id is required without a user context', { field: 'user_id', constraint: 'required' })
      if (!users.get(userId)) throw new HttpError('VALIDATION_ERROR', 'user_id names no user', { field: 'user_id', constraint: 'exists' })
      const { row, key } = apiKeys.create(userId, req.body.scope ?? 'agent', req.body.label ?? null)
      reply.code(201)
      return { ...publicKey(row), key }
    },
  )

  app.get(
    '/admin/api-keys',
    {
      config: { ...admin },
      schema: { summary: 'List API keys', querystring: KeyListQuery, response: { 200: ListOf(ApiKey) } },
    },
    async (req) => everything(apiKeys.list({ userId: req.query.user_id, scope: req.query.scope }).map(publicKey)),
  )

  app.delete(
    '/admin/api-keys/:id',
    {
      config: admin,
      schema: {
        summary: 'Revoke an API key',
        description: 'Live connections made with the key close at once.',
        params: IdParams,
        response: { 200: Single(ApiKey) },
      },
    },
    async (req) => {
      if (!apiKeys.revoke(req.params.id)) throw new HttpError('NOT_FOUND', 'API key not found')
      const row = apiKeys.get(req.params.id) as NonNullable<ReturnType<typeof apiKeys.get>>
      // Live connections made with this key close at once, not at the next re-check.
      events.emit('api_key.revoked', { userId: row.user_id, id: row.id, data: publicKey(row) })
      return publicKey(row)
    },
  )

  app.get('/api-keys/mine', { schema: { summary: "List the caller's API keys", response: { 200: ListOf(ApiKey) } } }, async (req) =>
    everything(apiKeys.list({ userId: req.userId }).map(publicKey)),
  )
}
