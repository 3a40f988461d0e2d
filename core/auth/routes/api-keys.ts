import type { PluginInstance } from '../../plugin-api.js'
import { everything, IdParams, ListOf, Single } from '../../schemas.js'
import { publicKey } from '../api-keys.js'
import { ApiKey, CreatedApiKey, CreateKeyBody, KeyListQuery } from '../schemas.js'
import type { AuthRoutesOptions } from './index.js'

export async function apiKeyRoutes(app: PluginInstance, { apiKeys, accounts }: AuthRoutesOptions) {
  const admin = { role: 'admin', scope: 'admin' } as const

  app.post(
    '/admin/api-keys',
    {
      config: { ...admin, secret: true },
      schema: {
        summary: 'Create an API key',
        description:
          'The key itself is in this answer only; Hearth keeps its SHA-256 hash. Only an owner creates `system` keys, and nobody creates a key for a user above their own role (403 FORBIDDEN).',
        body: CreateKeyBody,
        response: { 201: Single(CreatedApiKey) },
      },
    },
    async (req, reply) => {
      const { row, key } = accounts.createKey(req.auth, { userId: req.body.user_id, scope: req.body.scope, label: req.body.label })
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
        description:
          "Live connections made with the key close at once. A key of a user above the caller's role is not theirs to revoke (403 FORBIDDEN).",
        params: IdParams,
        response: { 200: Single(ApiKey) },
      },
    },
    async (req) => publicKey(accounts.revokeKey(req.auth, req.params.id)),
  )

  app.get('/api-keys/mine', { schema: { summary: "List the caller's API keys", response: { 200: ListOf(ApiKey) } } }, async (req) =>
    everything(apiKeys.list({ userId: req.userId }).map(publicKey)),
  )
}
