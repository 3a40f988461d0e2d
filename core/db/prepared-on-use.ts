import type Database from 'better-sqlite3'

/**
 * Any statement, typed or not (`db.prepare<[...], Row>(sql)`); only its type is carried. Structural on purpose:
 * a constraint naming Statement's parameters would become the contextual return type of `() => db.prepare(sql)`
 * and infer its parameters from it (`never[]`) instead of prepare's default (`unknown[]`).
 */
type AnyStatement = Pick<Database.Statement, 'source'>

/** A statement's SQL (an untyped statement), or a function preparing a typed one: `() => db.prepare<[string], Row>(sql)`. */
export type StatementSource = string | (() => AnyStatement)

/** Each name's statement: the thunk's statement type as it was declared, `Database.Statement` for plain SQL. */
export type PreparedStatements<T extends Record<string, StatementSource>> = {
  readonly [K in keyof T]: T[K] extends () => infer S ? S : Database.Statement
}

/**
 * A store's statements, each prepared on its first use instead of when the store is built. A prepared
 * statement holds SQLite's compiled program (~6 KB of memory); the stores of features an idle appliance does
 * not use (DNS, proxy, DAV, sync, AI, photos...) prepared dozens at start that an idle daemon never runs.
 * Same statements, same SQL: only when SQLite compiles it moves (a wrong statement now fails on its first
 * use: each store's tests should reach its statements). docs/performance.md "Idle memory (fifth pass)" and
 * "Idle memory (sixth pass)".
 *
 * Each name is a getter that prepares its statement and replaces itself with it as a plain value: the object
 * keeps V8's fast properties (checked with %HasFastProperties), so a hot store pays nothing after the first use.
 * A function source (a thunk) keeps the statement's declared parameter and row types.
 */
export function preparedOnUse<T extends Record<string, StatementSource>>(db: Database.Database, sources: T): PreparedStatements<T> {
  const statements = {} as PreparedStatements<T>
  for (const name of Object.keys(sources)) {
    const source: StatementSource = sources[name]
    Object.defineProperty(statements, name, {
      enumerable: true,
      configurable: true,
      get() {
        const statement = typeof source === 'string' ? db.prepare(source) : source()
        Object.defineProperty(statements, name, { value: statement, enumerable: true })
        return statement
      },
    })
  }
  return statements
}
