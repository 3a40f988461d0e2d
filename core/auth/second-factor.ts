import { randomBytes, randomUUID } from 'node:crypto'
import { base32Decode, base32Encode, matchTotp, newTotpSecret, otpauthUrl } from '../../lib/totp.js'
import { preparedOnUse } from '../db/prepared-on-use.js'
import type { Db } from '../db/sqlite.js'
import { HttpError } from '../errors.js'
import { sha256 } from './hash.js'

/** Seals and opens the TOTP secret with the daemon's credential-encryption key (core/secrets.ts). */
export interface SecretBox {
  encrypt(plaintext: string): string
  decrypt(sealed: string): string
}

interface FactorRow {
  user_id: string
  secret_sealed: string
  confirmed_at: number | null
  last_step: number
}

export const RECOVERY_CODES = 10
const ISSUER = 'Hearth'

/** A recovery code: 12 base32 characters (60 random bits) shown as `xxxx-xxxx-xxxx`. */
const newRecoveryCode = () =>
  base32Encode(randomBytes(8))
    .slice(0, 12)
    .toLowerCase()
    .replace(/(.{4})(?=.)/g, '$1-')
/** What a recovery code is compared as: its letters and digits, lower case (dashes and spaces are the reader's). */
const normalRecovery = (code: string) => code.replace(/[^0-9a-z]/gi, '').toLowerCase()

/**
 * A user's second factor: a TOTP secret (set up, then confirmed with a first code) and ten single-use
 * recovery codes. A code is accepted once: the last accepted time step is stored and only later steps
 * pass. The secret is kept sealed; recovery codes are kept as SHA-256.
 */
export function createSecondFactor(deps: { db: Db; box: SecretBox; now: () => number }) {
  const q = preparedOnUse(deps.db, {
    get: 'SELECT * FROM totp_factors WHERE user_id = ?',
    enabled: 'SELECT 1 FROM totp_factors WHERE user_id = ? AND confirmed_at IS NOT NULL',
    begin: `INSERT INTO totp_factors (user_id, secret_sealed, confirmed_at, last_step, created_at) VALUES (?, ?, NULL, -1, ?)
      ON CONFLICT (user_id) DO UPDATE SET secret_sealed = excluded.secret_sealed, last_step = -1, created_at = excluded.created_at
      WHERE confirmed_at IS NULL`,
    confirm: 'UPDATE totp_factors SET confirmed_at = ? WHERE user_id = ? AND confirmed_at IS NULL',
    // Compare-and-set: of two requests with the same code, only one moves the step on.
    useStep: 'UPDATE totp_factors SET last_step = ? WHERE user_id = ? AND last_step < ?',
    remove: 'DELETE FROM totp_factors WHERE user_id = ?',
    removeCodes: 'DELETE FROM recovery_codes WHERE user_id = ?',
    insertCode: 'INSERT INTO recovery_codes (id, user_id, code_hash) VALUES (?, ?, ?)',
    useCode: 'UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL',
    codesLeft: 'SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = ? AND used_at IS NULL',
  })

  const factor = (userId: string) => q.get.get(userId) as FactorRow | undefined

  /** Whether `code` is the TOTP of a step not used before; the step is then used. Apps show `123 456`: spaces do not count. */
  const totp = (row: FactorRow, code: string): boolean => {
    const key = base32Decode(deps.box.decrypt(row.secret_sealed))
    const step = key && matchTotp(key, code.replace(/\s/g, ''), deps.now(), { after: row.last_step })
    return step !== null && step !== undefined && q.useStep.run(step, row.user_id, step).changes === 1
  }

  return {
    /** Whether the user's sign-in asks for a second factor. */
    enabled: (userId: string): boolean => q.enabled.get(userId) !== undefined,

    /** A new secret for the user's app, pending until confirmed (409 when 2FA is already on). */
    begin(userId: string, email: string): { secret: string; otpauth_url: string } {
      const secret = newTotpSecret()
      const changed = q.begin.run(userId, deps.box.encrypt(secret), deps.now()).changes
      if (changed === 0) throw new HttpError('CONFLICT', 'Two-factor sign-in is already on; turn it off first')
      return { secret, otpauth_url: otpauthUrl({ secret, issuer: ISSUER, account: email }) }
    },

    /**
     * Turns 2FA on with a first code from the app and answers the recovery codes (shown this once).
     * False when the code is wrong; 409 when nothing is pending.
     */
    confirm(userId: string, code: string): string[] | false {
      const row = factor(userId)
      if (!row || row.confirmed_at !== null) throw new HttpError('CONFLICT', 'No two-factor set-up is pending: start with the setup step')
      if (!totp(row, code)) return false
      const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode)
      deps.db.transaction(() => {
        q.confirm.run(deps.now(), userId)
        q.removeCodes.run(userId)
        for (const c of codes) q.insertCode.run(randomUUID(), userId, sha256(normalRecovery(c)))
      })()
      return codes
    },

    /** Whether `code` is a fresh TOTP or an unused recovery code of the user's confirmed factor (either is then spent). */
    verify(userId: string, code: string): boolean {
      const row = factor(userId)
      if (!row || row.confirmed_at === null) return false
      if (/^\d{6}$/.test(code.replace(/\s/g, ''))) return totp(row, code)
      const normal = normalRecovery(code)
      return normal.length === 12 && q.useCode.run(deps.now(), userId, sha256(normal)).changes === 1
    },

    recoveryCodesLeft: (userId: string): number => (q.codesLeft.get(userId) as { n: number }).n,

    /** Turns 2FA off (also what an admin's reset does); false when it was not set up at all. */
    remove(userId: string): boolean {
      return deps.db.transaction(() => {
        q.removeCodes.run(userId)
        return q.remove.run(userId).changes > 0
      })()
    },
  }
}
export type SecondFactor = ReturnType<typeof createSecondFactor>
