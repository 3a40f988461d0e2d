import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../../core/plugin-api.js'

/** DDNS history: every check (dns_ddns_checks) and every change (dns_ddns_log). */
export interface CheckRow {
  checked_at: string
  ip: string | null
  error: string | null
}

export interface LogRow {
  id: string
  previous_ip: string | null
  new_ip: string
  detected_at: string
  zones_updated: string
  error: string | null
}

export function ddnsStore(db: Database.Database) {
  const s = preparedOnUse(db, {
    check: 'INSERT INTO dns_ddns_checks (checked_at, ip, error) VALUES (?, ?, ?)',
    lastCheck: 'SELECT * FROM dns_ddns_checks ORDER BY checked_at DESC, rowid DESC LIMIT 1',
    lastGood: 'SELECT * FROM dns_ddns_checks WHERE ip IS NOT NULL ORDER BY checked_at DESC, rowid DESC LIMIT 1',
    firstGoodSince: 'SELECT * FROM dns_ddns_checks WHERE ip IS NOT NULL AND checked_at >= ? ORDER BY checked_at LIMIT 1',
    prune: 'DELETE FROM dns_ddns_checks WHERE checked_at < ?',
    log: `INSERT INTO dns_ddns_log (id, previous_ip, new_ip, detected_at, zones_updated, error)
      VALUES (@id, @previous_ip, @new_ip, @detected_at, @zones_updated, @error)`,
    list: 'SELECT * FROM dns_ddns_log ORDER BY detected_at DESC, rowid DESC LIMIT ?',
    lastChange: 'SELECT * FROM dns_ddns_log ORDER BY detected_at DESC, rowid DESC LIMIT 1',
    changesSince: 'SELECT COUNT(*) AS n FROM dns_ddns_log WHERE previous_ip IS NOT NULL AND detected_at >= ?',
  })
  return {
    addCheck: (row: CheckRow) => s.check.run(row.checked_at, row.ip, row.error),
    lastCheck: () => s.lastCheck.get() as CheckRow | undefined,
    lastGood: () => s.lastGood.get() as CheckRow | undefined,
    firstGoodSince: (since: string) => s.firstGoodSince.get(since) as CheckRow | undefined,
    prune: (before: string) => s.prune.run(before),
    addLog: (row: LogRow) => s.log.run(row),
    listLog: (limit: number) => s.list.all(limit) as LogRow[],
    lastChange: () => s.lastChange.get() as LogRow | undefined,
    changesSince: (since: string) => (s.changesSince.get(since) as { n: number }).n,
  }
}
export type DdnsStore = ReturnType<typeof ddnsStore>
