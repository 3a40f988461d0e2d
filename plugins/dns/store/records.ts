import type Database from 'better-sqlite3'
import type { RecordType } from '../../../drivers/dns-providers/driver.js'
import { preparedOnUse } from '../../../core/plugin-api.js'

/** dns_records rows: authoritative records, and the local mirror of proxy zones' provider records. */
export interface RecordRow {
  zone_id: string
  id: string
  user_id: string
  type: RecordType | 'SOA'
  name: string
  content: string
  ttl: number
  priority: number | null
  proxied: number
  ddns: number
  created_at: string
  updated_at: string
}

export function recordStore(db: Database.Database) {
  const s = preparedOnUse(db, {
    list: 'SELECT * FROM dns_records WHERE zone_id = ? ORDER BY name, type, content',
    get: 'SELECT * FROM dns_records WHERE zone_id = ? AND id = ?',
    byName: 'SELECT * FROM dns_records WHERE zone_id = ? AND name = ? ORDER BY type, content',
    insert: `INSERT INTO dns_records (zone_id, id, user_id, type, name, content, ttl, priority, proxied, ddns, created_at, updated_at)
      VALUES (@zone_id, @id, @user_id, @type, @name, @content, @ttl, @priority, @proxied, @ddns, @created_at, @updated_at)`,
    update: `UPDATE dns_records SET id = @new_id, type = @type, name = @name, content = @content, ttl = @ttl,
      priority = @priority, proxied = @proxied, ddns = @ddns, updated_at = @updated_at WHERE zone_id = @zone_id AND id = @id`,
    remove: 'DELETE FROM dns_records WHERE zone_id = ? AND id = ?',
    rrsetTtl: 'UPDATE dns_records SET ttl = ? WHERE zone_id = ? AND name = ? AND type = ? AND ttl != ?',
    clear: 'DELETE FROM dns_records WHERE zone_id = ?',
    clearDdns: 'UPDATE dns_records SET ddns = 0 WHERE zone_id = ?',
    markDdns: 'UPDATE dns_records SET ddns = 1 WHERE zone_id = ? AND id = ?',
    ddns: 'SELECT * FROM dns_records WHERE zone_id = ? AND ddns = 1 ORDER BY name',
  })
  const store = {
    list: (zoneId: string) => s.list.all(zoneId) as RecordRow[],
    get: (zoneId: string, id: string) => s.get.get(zoneId, id) as RecordRow | undefined,
    /** The records of one owner name (relative, '@' for the apex). */
    byName: (zoneId: string, name: string) => s.byName.all(zoneId, name) as RecordRow[],
    insert: (row: RecordRow) => s.insert.run(row),
    /** Replaces the record's fields; `newId` differs only when the provider renumbered it. */
    update: (row: RecordRow, newId = row.id) => s.update.run({ ...row, new_id: newId }),
    remove: (zoneId: string, id: string) => s.remove.run(zoneId, id).changes > 0,
    /** RFC 2181 5.2: one TTL per RRset; gives every record of the name and type this TTL. */
    setRrsetTtl: (zoneId: string, name: string, type: string, ttl: number) => s.rrsetTtl.run(ttl, zoneId, name, type, ttl).changes,
    ddnsRecords: (zoneId: string) => s.ddns.all(zoneId) as RecordRow[],
    setDdns: db.transaction((zoneId: string, ids: string[]) => {
      s.clearDdns.run(zoneId)
      for (const id of ids) s.markDdns.run(zoneId, id)
    }),
    /** Replaces a proxy zone's mirror with the provider's records, keeping DDNS marks by id (or by name and type). */
    replaceMirror: db.transaction((zoneId: string, rows: RecordRow[]) => {
      const old = s.list.all(zoneId) as RecordRow[]
      const marked = old.filter((r) => r.ddns === 1)
      s.clear.run(zoneId)
      for (const row of rows) {
        const keep = marked.some((m) => m.id === row.id || (m.name === row.name && m.type === row.type))
        s.insert.run({ ...row, ddns: keep ? 1 : 0 })
      }
    }),
  }
  return store
}
export type RecordStore = ReturnType<typeof recordStore>
