import type Database from 'better-sqlite3'
import { preparedOnUse } from '../../core/plugin-api.js'

export interface RouteRow {
  id: string
  domain: string
  target: string
  ssl: number
  enabled: number
  error: string | null
  created_at: string
  updated_at: string
}

export function routeStore(db: Database.Database) {
  const s = preparedOnUse(db, {
    list: 'SELECT * FROM proxy_routes ORDER BY domain',
    get: 'SELECT * FROM proxy_routes WHERE id = ?',
    byDomain: 'SELECT * FROM proxy_routes WHERE domain = ?',
    insert:
      'INSERT INTO proxy_routes (id, domain, target, ssl, enabled, error, created_at, updated_at) VALUES (@id, @domain, @target, @ssl, @enabled, @error, @created_at, @updated_at)',
    update:
      'UPDATE proxy_routes SET domain = @domain, target = @target, ssl = @ssl, enabled = @enabled, updated_at = @updated_at WHERE id = @id',
    remove: 'DELETE FROM proxy_routes WHERE id = ?',
    error: 'UPDATE proxy_routes SET error = ? WHERE id = ?',
  })
  return {
    list: () => s.list.all() as RouteRow[],
    get: (id: string) => s.get.get(id) as RouteRow | undefined,
    byDomain: (domain: string) => s.byDomain.get(domain) as RouteRow | undefined,
    insert: (row: RouteRow) => s.insert.run(row),
    update: (row: RouteRow) => s.update.run(row),
    remove: (id: string) => s.remove.run(id).changes > 0,
    setError: (id: string, error: string | null) => s.error.run(error, id),
  }
}
export type RouteStore = ReturnType<typeof routeStore>
