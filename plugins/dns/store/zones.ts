import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../../core/plugin-api.js'

/** dns_zones rows; every user-facing query is scoped by user_id. */
export interface ZoneRow {
  id: string
  user_id: string
  zone: string
  mode: 'authoritative' | 'proxy'
  provider_account_id: string | null
  provider_zone_id: string | null
  serial: number
  propagation_status: 'pending' | 'verified' | 'failed'
  ns_found: string
  ns_checked_at: string | null
  ddns_enabled: number
  created_at: string
  updated_at: string
}

export type ZoneWithCount = ZoneRow & { records_count: number }

const COUNT = '(SELECT COUNT(*) FROM dns_records r WHERE r.zone_id = z.id) AS records_count'

export function zoneStore(db: Database.Database) {
  const s = preparedOnUse(db, {
    insert: `INSERT INTO dns_zones (id, user_id, zone, mode, provider_account_id, provider_zone_id, serial, created_at, updated_at)
      VALUES (@id, @user_id, @zone, @mode, @provider_account_id, @provider_zone_id, @serial, @created_at, @updated_at)`,
    get: `SELECT z.*, ${COUNT} FROM dns_zones z WHERE z.user_id = ? AND z.id = ?`,
    row: 'SELECT * FROM dns_zones WHERE user_id = ? AND id = ?',
    list: `SELECT z.*, ${COUNT} FROM dns_zones z WHERE z.user_id = ? ORDER BY z.zone`,
    byName: 'SELECT * FROM dns_zones WHERE zone = ?',
    foreignBelow: `SELECT zone FROM dns_zones WHERE zone LIKE ? ESCAPE '\\' AND user_id != ? LIMIT 1`,
    remove: 'DELETE FROM dns_zones WHERE user_id = ? AND id = ?',
    serial: 'UPDATE dns_zones SET serial = ?, updated_at = ? WHERE id = ?',
    ddns: 'UPDATE dns_zones SET ddns_enabled = ?, updated_at = ? WHERE id = ?',
    ns: 'UPDATE dns_zones SET propagation_status = ?, ns_found = ?, ns_checked_at = ? WHERE id = ?',
    authoritative: `SELECT * FROM dns_zones WHERE mode = 'authoritative' ORDER BY zone`,
    pending: `SELECT * FROM dns_zones WHERE mode = 'authoritative' AND propagation_status = 'pending'`,
    ddnsZones: 'SELECT * FROM dns_zones WHERE ddns_enabled = 1',
    userDdnsZones: 'SELECT * FROM dns_zones WHERE ddns_enabled = 1 AND user_id = ? ORDER BY zone',
    usingAccount: 'SELECT COUNT(*) AS n FROM dns_zones WHERE provider_account_id = ?',
  })
  return {
    insert: (row: Omit<ZoneRow, 'propagation_status' | 'ns_found' | 'ns_checked_at' | 'ddns_enabled'>) => s.insert.run(row),
    get: (userId: string, id: string) => s.get.get(userId, id) as ZoneWithCount | undefined,
    /** The zone without its record count (counting is O(records): record writes do not need it). */
    row: (userId: string, id: string) => s.row.get(userId, id) as ZoneRow | undefined,
    list: (userId: string) => s.list.all(userId) as ZoneWithCount[],
    byName: (zone: string) => s.byName.get(zone) as ZoneRow | undefined,
    /** Another user's zone inside `zone` (a child), if any. */
    foreignChild: (zone: string, userId: string) =>
      (s.foreignBelow.get(`%.${zone.replace(/[\\%_]/g, (c) => `\\${c}`)}`, userId) as { zone: string } | undefined)?.zone ?? null,
    remove: (userId: string, id: string) => s.remove.run(userId, id).changes > 0,
    setSerial: (id: string, serial: number, at: string) => s.serial.run(serial, at, id),
    setDdns: (id: string, enabled: boolean, at: string) => s.ddns.run(enabled ? 1 : 0, at, id),
    setNs: (id: string, status: ZoneRow['propagation_status'], found: string[], at: string) =>
      s.ns.run(status, JSON.stringify(found), at, id),
    authoritative: () => s.authoritative.all() as ZoneRow[],
    pending: () => s.pending.all() as ZoneRow[],
    ddnsZones: () => s.ddnsZones.all() as ZoneRow[],
    userDdnsZones: (userId: string) => s.userDdnsZones.all(userId) as ZoneRow[],
    accountInUse: (accountId: string) => (s.usingAccount.get(accountId) as { n: number }).n > 0,
  }
}
export type ZoneStore = ReturnType<typeof zoneStore>
