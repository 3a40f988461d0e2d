import { randomUUID } from 'node:crypto'
import { preparedOnUse } from '../db/prepared-on-use.js'
import type { Db } from '../db/sqlite.js'

export interface PasskeyRow {
  id: string
  user_id: string
  credential_id: string
  public_key: Buffer
  counter: number
  transports: string
  name: string
  backed_up: number
  created_at: string
  last_used_at: string | null
}

/** A passkey as its owner sees it: never the key material. */
export const publicPasskey = (row: PasskeyRow) => ({
  id: row.id,
  name: row.name,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
  backed_up: row.backed_up === 1,
})

/** Passkeys one member may hold: enough for every device of a household, a bound on the sign-in options' size. */
export const MAX_PASSKEYS = 20

/** The passkeys table; every query but the lookup by credential id names the user. */
export function createPasskeyStore(db: Db) {
  const q = preparedOnUse(db, {
    byCredential: 'SELECT * FROM webauthn_credentials WHERE credential_id = ?',
    list: 'SELECT * FROM webauthn_credentials WHERE user_id = ? ORDER BY created_at, id',
    count: 'SELECT COUNT(*) AS n FROM webauthn_credentials WHERE user_id = ?',
    insert: `INSERT INTO webauthn_credentials (id, user_id, credential_id, public_key, counter, transports, name, backed_up, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (credential_id) DO NOTHING`,
    get: 'SELECT * FROM webauthn_credentials WHERE id = ? AND user_id = ?',
    remove: 'DELETE FROM webauthn_credentials WHERE id = ? AND user_id = ?',
    // Compare-and-set: of two assertions carrying the same counter, one moves it on. Authenticators
    // that count nothing (synced passkeys report 0) always pass, as WebAuthn asks.
    use: `UPDATE webauthn_credentials SET counter = ?, backed_up = ?, last_used_at = ?
      WHERE id = ? AND counter = ? AND (? > counter OR (? = 0 AND counter = 0))`,
  })

  return {
    byCredentialId: (credentialId: string) => q.byCredential.get(credentialId) as PasskeyRow | undefined,
    list: (userId: string) => q.list.all(userId) as PasskeyRow[],
    count: (userId: string) => (q.count.get(userId) as { n: number }).n,
    get: (userId: string, id: string) => q.get.get(id, userId) as PasskeyRow | undefined,
    /** The new row, or undefined when that credential id is already registered (to anyone). */
    insert(input: {
      userId: string
      credentialId: string
      publicKey: Uint8Array
      counter: number
      transports: string[]
      name: string
      backedUp: boolean
    }): PasskeyRow | undefined {
      const id = randomUUID()
      const changed = q.insert.run(
        id,
        input.userId,
        input.credentialId,
        Buffer.from(input.publicKey),
        input.counter,
        JSON.stringify(input.transports),
        input.name,
        input.backedUp ? 1 : 0,
        new Date().toISOString(),
      ).changes
      return changed ? (q.get.get(id, input.userId) as PasskeyRow) : undefined
    },
    remove: (userId: string, id: string): boolean => q.remove.run(id, userId).changes > 0,
    /** Records a verified use; false when another use moved the counter first (the assertion is then refused). */
    used(row: PasskeyRow, counter: number, backedUp: boolean): boolean {
      return q.use.run(counter, backedUp ? 1 : 0, new Date().toISOString(), row.id, row.counter, counter, counter).changes === 1
    },
  }
}
export type PasskeyStore = ReturnType<typeof createPasskeyStore>
