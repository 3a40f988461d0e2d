import { randomUUID } from 'node:crypto'
import { checkCredentials } from '../../../drivers/dns-providers/api-errors.js'
import { HttpError } from '../../../core/plugin-api.js'
import type { AccountRow } from '../store/accounts.js'
import type { DnsContext } from './context.js'
import { driverFor } from './providers.js'

/** Provider accounts: credentials checked per provider, sealed with AES-256-GCM, never returned. */

export interface AccountView {
  id: string
  provider: string
  label: string
  created_at: string
  last_tested_at: string | null
  connected: boolean | null
}

export const viewAccount = (a: AccountRow): AccountView => ({
  id: a.id,
  provider: a.provider,
  label: a.label,
  created_at: a.created_at,
  last_tested_at: a.last_tested_at,
  connected: a.connected === null ? null : a.connected === 1,
})

export function accountService(ctx: DnsContext) {
  const find = (userId: string, id: string) => {
    const row = ctx.accounts.get(userId, id)
    if (!row) throw new HttpError('NOT_FOUND', 'Provider account not found')
    return row
  }
  return {
    find,
    list: (userId: string) => ctx.accounts.list(userId).map(viewAccount),
    create(userId: string, body: { provider: string; label: string; credentials: Record<string, string> }): AccountView {
      const provider = body.provider.trim().toLowerCase()
      checkCredentials(provider, body.credentials)
      const trimmed = Object.fromEntries(Object.entries(body.credentials).map(([k, v]) => [k, v.trim()]))
      const row = {
        id: randomUUID(),
        user_id: userId,
        provider,
        label: body.label.trim(),
        credentials: ctx.api.secrets.encrypt(JSON.stringify(trimmed)),
        created_at: ctx.iso(),
      }
      ctx.accounts.insert(row)
      return viewAccount(find(userId, row.id))
    },
    /** One real authenticated call; the outcome is remembered on the account. */
    async test(userId: string, id: string): Promise<{ connected: boolean }> {
      const row = find(userId, id)
      const connected = await driverFor(ctx, row).testConnection()
      ctx.accounts.setTested(row.id, connected, ctx.iso())
      return { connected }
    },
    remove(userId: string, id: string) {
      find(userId, id)
      if (ctx.zones.accountInUse(id)) throw new HttpError('CONFLICT', 'Provider account is used by proxy zones; delete them first')
      ctx.accounts.remove(userId, id)
      return { id, deleted: true as const }
    },
  }
}
export type AccountService = ReturnType<typeof accountService>
