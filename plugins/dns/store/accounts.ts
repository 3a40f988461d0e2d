import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../../core/plugin-api.js'

/** dns_provider_accounts rows; `credentials` is the sealed (encrypted) JSON. */
export interface AccountRow {
  id: string
  user_id: string
  provider: string
  label: string
  credentials: string
  created_at: string
  last_tested_at: string | null
  connected: number | null
}

export function accountStore(db: Database.Database) {
  const s = preparedOnUse(db, {
    insert: `INSERT INTO dns_provider_accounts (id, user_id, provider, label, credentials, created_at)
      VALUES (@id, @user_id, @provider, @label, @credentials, @created_at)`,
    get: 'SELECT * FROM dns_provider_accounts WHERE user_id = ? AND id = ?',
    list: 'SELECT * FROM dns_provider_accounts WHERE user_id = ? ORDER BY created_at, id',
    remove: 'DELETE FROM dns_provider_accounts WHERE user_id = ? AND id = ?',
    tested: 'UPDATE dns_provider_accounts SET connected = ?, last_tested_at = ? WHERE id = ?',
  })
  return {
    insert: (row: Omit<AccountRow, 'last_tested_at' | 'connected'>) => s.insert.run(row),
    get: (userId: string, id: string) => s.get.get(userId, id) as AccountRow | undefined,
    list: (userId: string) => s.list.all(userId) as AccountRow[],
    remove: (userId: string, id: string) => s.remove.run(userId, id).changes > 0,
    setTested: (id: string, connected: boolean, at: string) => s.tested.run(connected ? 1 : 0, at, id),
  }
}
export type AccountStore = ReturnType<typeof accountStore>
