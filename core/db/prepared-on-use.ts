import type Database from 'better-sqlite3'

/**
 * A store's statements, each prepared on its first use instead of when the store is built. A prepared
 * statement holds SQLite's compiled program (~6 KB of memory); the DNS and proxy stores prepare dozens at
 * start that an idle daemon never runs (a DNS provider, DDNS, a proxy route: first used on a request or a
 * job). Same statements, same SQL: only when SQLite compiles it moves (a wrong statement now fails on its
 * first use; each store's tests run every one). docs/performance.md "Idle memory (fifth pass)".
 */
export function preparedOnUse<K extends string>(db: Database.Database, sql: Record<K, string>): Record<K, Database.Statement> {
  const statements = {} as Record<K, Database.Statement>
  for (const name of Object.keys(sql) as K[]) {
    Object.defineProperty(statements, name, {
      enumerable: true,
      configurable: true,
      get() {
        const statement = db.prepare(sql[name])
        Object.defineProperty(statements, name, { value: statement, enumerable: true })
        return statement
      },
    })
  }
  return statements
}
