import type Database from 'better-sqlite3'
import type { Period } from './compose.js'
import { preparedOnUse } from '../../core/plugin-api.js'

export interface SettingsRow {
  user_id: string
  schedule: string | null
  period: Period
  deliver: 'email' | 'webhook'
  target: string
  webhook_secret_enc: string | null
  allow_private: number
  active: number
  last_delivered_at: string | null
  last_status: 'ok' | 'failed' | null
  last_error: string | null
  updated_at: string
  deliveries_day: string | null
  deliveries_count: number
}

/** digest_settings, one row per user. */
export function digestStore(db: Database.Database) {
  const q = preparedOnUse(db, {
    get: () => db.prepare<[string], SettingsRow>('SELECT * FROM digest_settings WHERE user_id = ?'),
    all: () => db.prepare<[], SettingsRow>('SELECT * FROM digest_settings'),
    put: () =>
      db.prepare(
        `INSERT INTO digest_settings (user_id, schedule, period, deliver, target, webhook_secret_enc, allow_private, active, updated_at)
     VALUES (@user_id, @schedule, @period, @deliver, @target, @webhook_secret_enc, @allow_private, @active, @updated_at)
     ON CONFLICT (user_id) DO UPDATE SET schedule = excluded.schedule, period = excluded.period, deliver = excluded.deliver,
       target = excluded.target, webhook_secret_enc = excluded.webhook_secret_enc, allow_private = excluded.allow_private,
       active = excluded.active, updated_at = excluded.updated_at`,
      ),
    outcome: () =>
      db.prepare<[string, string, string | null, string]>(
        'UPDATE digest_settings SET last_delivered_at = ?, last_status = ?, last_error = ? WHERE user_id = ?',
      ),
    access: () =>
      db.prepare<[number, number, string]>(
        'UPDATE digest_settings SET active = ?, allow_private = min(allow_private, ?) WHERE user_id = ?',
      ),
    remove: () => db.prepare<[string]>('DELETE FROM digest_settings WHERE user_id = ?'),
    // One more delivery on `day`, unless `max` were made that day already.
    count: () =>
      db.prepare<{ user: string; day: string; max: number }>(
        `UPDATE digest_settings SET deliveries_count = CASE WHEN deliveries_day = @day THEN deliveries_count + 1 ELSE 1 END,
           deliveries_day = @day
         WHERE user_id = @user AND (deliveries_day IS NOT @day OR deliveries_count < @max)`,
      ),
  })
  return {
    get: (userId: string) => q.get.get(userId) ?? null,
    all: () => q.all.all(),
    put: (row: Omit<SettingsRow, 'last_delivered_at' | 'last_status' | 'last_error' | 'deliveries_day' | 'deliveries_count'>) => {
      q.put.run(row)
      return q.get.get(row.user_id) as SettingsRow
    },
    outcome: (userId: string, at: string, error: string | null) => q.outcome.run(at, error ? 'failed' : 'ok', error, userId),
    /** The user's tier and role changed: deliveries pause while free; a demoted admin's webhook loses private targets. */
    access: (userId: string, pro: boolean, admin: boolean) => q.access.run(pro ? 1 : 0, admin ? 1 : 0, userId),
    remove: (userId: string) => q.remove.run(userId).changes > 0,
    /** Counts a delivery on the UTC day of `at`; false when `max` were made that day already. */
    count: (userId: string, at: number, max: number) =>
      q.count.run({ user: userId, day: new Date(at).toISOString().slice(0, 10), max }).changes > 0,
  }
}

export type DigestStore = ReturnType<typeof digestStore>
