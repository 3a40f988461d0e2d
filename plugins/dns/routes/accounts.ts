import { Type } from '@sinclair/typebox'
import { ListOf, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { Account, AccountBody, Deleted, ZoneParams } from '../schemas.js'
import type { DnsServices } from '../services/index.js'

/** /dns/provider-accounts: credentials go in, never come out. */
export async function accountRoutes(app: PluginInstance, s: DnsServices) {
  app.get(
    '/provider-accounts',
    {
      schema: {
        summary: 'List DNS provider accounts',
        description: 'Credentials are never answered.',
        tags: ['dns'],
        response: { 200: ListOf(Account) },
      },
    },
    async (req) => {
      const items = s.accounts.list(req.userId)
      return { items, total: items.length }
    },
  )

  app.post(
    '/provider-accounts',
    {
      config: { errors: ['UNPROCESSABLE'] },
      schema: {
        summary: 'Add a DNS provider account',
        description: 'Credentials are stored encrypted and never answered.',
        tags: ['dns'],
        body: AccountBody,
        response: { 201: Single(Account) },
      },
    },
    async (req, reply) => {
      const account = s.accounts.create(req.userId, req.body)
      reply.code(201)
      return account
    },
  )

  app.post(
    '/provider-accounts/:id/test',
    {
      config: { errors: ['PROVIDER_ERROR'] },
      schema: {
        summary: 'Test the credentials of a provider account',
        tags: ['dns'],
        params: ZoneParams,
        response: { 200: Single(Type.Object({ connected: Type.Boolean() })) },
      },
    },
    async (req) => s.accounts.test(req.userId, req.params.id),
  )

  app.delete(
    '/provider-accounts/:id',
    {
      config: { errors: ['CONFLICT'] },
      schema: { summary: 'Delete a DNS provider account', tags: ['dns'], params: ZoneParams, response: { 200: Single(Deleted) } },
    },
    async (req) => s.accounts.remove(req.userId, req.params.id),
  )
}
