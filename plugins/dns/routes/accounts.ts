import { Type } from '@sinclair/typebox'
import { ListOf, type PluginInstance, Single } from '../../../core/plugin-api.js'
import { Account, AccountBody, Deleted, ZoneParams } from '../schemas.js'
import type { DnsServices } from '../services/index.js'

/** /dns/provider-accounts: credentials go in, never come out. */
export async function accountRoutes(app: PluginInstance, s: DnsServices) {
  const user = (req: { auth: { userId: string | null } }) => req.auth.userId as string

  app.get(
    '/provider-accounts',
    { schema: { tags: ['dns'], response: { 200: ListOf(Account) } }, config: { envelope: 'list' } },
    async (req) => {
      const items = s.accounts.list(user(req))
      return { items, total: items.length }
    },
  )

  app.post(
    '/provider-accounts',
    { schema: { tags: ['dns'], body: AccountBody, response: { 201: Single(Account) } } },
    async (req, reply) => {
      const account = s.accounts.create(user(req), req.body)
      reply.code(201)
      return account
    },
  )

  app.post(
    '/provider-accounts/:id/test',
    { schema: { tags: ['dns'], params: ZoneParams, response: { 200: Single(Type.Object({ connected: Type.Boolean() })) } } },
    async (req) => s.accounts.test(user(req), req.params.id),
  )

  app.delete('/provider-accounts/:id', { schema: { tags: ['dns'], params: ZoneParams, response: { 200: Single(Deleted) } } }, async (req) =>
    s.accounts.remove(user(req), req.params.id),
  )
}
