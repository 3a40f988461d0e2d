// The shapes the lister's modules pass between them.
import type Database from 'better-sqlite3'
import type { QueryCache } from './query-cache.js'
import type { ApiRecord, ResourceDefinition, SqlClause } from './types.js'

export interface Page {
  items: Record<string, unknown>[]
  total: number
}

export interface Ranked {
  record: ApiRecord
  seq: number
  rank: number
  /** An occurrence of a repeating record: its start, and that start as the sort column's text. */
  at?: number
  sortValue?: string
}

/**
 * Whose records a list reads: the caller (whose cached results these are), the SQL condition of
 * the records they may read (sharing/access.ts: their own, or also those shared with them), and,
 * when that reaches others' records, the same rule in code, asked of each record read.
 */
export interface ListView {
  userId: string
  scope: SqlClause
  visible?: (record: ApiRecord) => boolean
  /**
   * Every member whose records `scope` may include: a search asks the full-text index for theirs only.
   * Asked only by a search (finding who invites the caller is a query plain lists need not make).
   */
  owners(): readonly string[]
}

/** A page's keys as the query cache holds them: sequence numbers in order, with the rank when ranked. */
export type PageKeys = Array<{ seq: number; rank?: number }>

/** What the lister's parts share: the resource, its prepared statements and the query cache. */
export interface ListerParts {
  def: ResourceDefinition
  prepare: (sql: string) => Database.Statement
  cache: QueryCache | null
}
