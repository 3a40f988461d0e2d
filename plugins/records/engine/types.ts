import type { TObject, TSchema } from '@sinclair/typebox'

/**
 * What a resource declares so the engine can store, list, search and route
 * it. Notes, contacts and events are each one of these (resources/*.ts); a
 * fourth resource is one more definition plus its migration.
 */

/** How a column travels between SQLite and the API. */
export type ColumnKind = 'text' | 'integer' | 'bool' | 'json'

/** A record as the REST API returns it. */
export type ApiRecord = Record<string, unknown> & { id: string }

/** A state change of one record, routed as `POST /<resource>/:id/<name>`. */
export interface ResourceAction {
  /** One line for the OpenAPI document. */
  summary: string
  description?: string
  apply(record: ApiRecord, ctx: ResourceContext & { now: number }): Record<string, unknown> | null
}

/** Everything a definition's hooks may need besides the body. */
export interface WriteContext {
  /** ISO time of this write (from api.now()). */
  now: string
}

/** One SQL condition with its bound parameters. */
export interface SqlClause {
  sql: string
  params: unknown[]
  /**
   * Set when the condition only selects a record state that records_counts keeps (migration 007):
   * a list whose every condition carries one reads its total there instead of counting.
   */
  state?: { deleted?: boolean; archived?: boolean }
}

/** The list query after schema validation (coerced types). */
export type ListQuery = Record<string, unknown> & {
  limit: number
  offset: number
  /** Keyset paging: the id of the record after which the page starts (the previous page's last item). */
  after?: string
  sort?: string
  order?: 'asc' | 'desc'
  search?: string
  tag?: string[]
  source?: string
  include_deleted?: boolean
  only_deleted?: boolean
  format?: 'compact'
}

export interface ListContext extends ResourceContext {
  /** Milliseconds since the epoch, for relative date filters. */
  now: number
}

/** What the instance settles for every record: its time zone (HEARTH_TIMEZONE, IANA). */
export interface ResourceContext {
  zone: string
}

/**
 * A ranged list of a resource whose records repeat (events): the engine
 * hands over the stored series and gets back the items they produce in range.
 */
export interface RangeExpansion {
  /** Column (ISO datetime text) the window applies to for plain records. */
  column: string
  /** The time window the query asks for, or null when it asks for none. */
  window(query: ListQuery, ctx: ListContext): { from: number | null; to: number | null } | null
  /** SQL that tells a repeating record from a plain one (true = repeats). */
  repeatingSql: string
  /** Start times (epoch ms) of one repeating record's occurrences inside the window, at most `limit`. */
  starts(record: ApiRecord, window: { from: number | null; to: number | null }, limit: number): number[]
  /** The item for the occurrence of `record` that starts at `at`. */
  occurrence(record: ApiRecord, at: number): ApiRecord
  /**
   * Records that replace one occurrence of a series (RFC 5545 RECURRENCE-ID): the column naming the
   * series and the one holding the replaced start (ISO instant). Expansion skips those starts.
   */
  overrides?: { seriesColumn: string; startColumn: string }
}

export interface ResourceDefinition {
  /** Plural, the URL segment and table name: 'notes'. */
  name: string
  /** Singular, the event prefix: 'note'. */
  singular: string
  /** Columns besides seq, id, user_id, source and the timestamps, in response order. */
  columns: Record<string, ColumnKind>
  /** FTS5 table and per-column bm25 weights (higher = more relevant) of its text columns; its last column, `owner`, weighs 0. */
  fts: { table: string; weights: number[] }
  schemas: {
    /** The full record as returned. */
    record: TObject
    /** POST body (additionalProperties false). */
    create: TObject
    /** PATCH body (every field optional, additionalProperties false). */
    patch: TObject
    /** Resource-specific list parameters, merged into the common ones. */
    listFilters: TObject
    /** Item of `format=compact`. */
    compact: TObject
  }
  /**
   * Sort keys accepted by `sort` and the defaults. `nullable` keys sort their nulls last in either
   * order; `expressions` sorts a key by an SQL expression over the row (`t`) instead of its column
   * (a task's priority 0, "none", sorts as null: after every priority).
   */
  sort: {
    keys: string[]
    default: string
    order: 'asc' | 'desc'
    nocase?: string[]
    nullable?: string[]
    expressions?: Record<string, (alias: string) => string>
  }
  /** Fields a create body may omit and their defaults (arrays are copied per record). */
  defaults: Record<string, unknown>
  /**
   * Fields an import may carry beyond the create body (e.g. a note's `archived`),
   * validated by this schema fragment.
   */
  importExtras?: Record<string, TSchema>
  /** Derives fields (title, display_name, end_at) and checks cross-field rules; throws VALIDATION_ERROR. */
  complete(
    record: Record<string, unknown>,
    changed: Set<string>,
    previous: Record<string, unknown> | null,
    ctx: ResourceContext & { now: number },
  ): void
  /** Resource-specific list filters. */
  filters(query: ListQuery, ctx: ListContext): SqlClause[]
  /**
   * Columns holding the id of another record of the same user (a subtask's parent): a write naming
   * a record the user does not have is refused (400 `exists`), and with `acyclic` one whose chain of
   * references comes back to the record itself (400 `cycle`).
   */
  references?: Record<string, { resource: string; acyclic?: boolean }>
  /**
   * State changes beyond PATCH, each `POST /<name>/:id/<action>` (a task's complete and reopen):
   * `apply` answers the fields to change (checked and completed as a PATCH's are), or null when the
   * record already is in that state (200, no change, no event).
   */
  actions?: Record<string, ResourceAction>
  /**
   * records_counts keeps this resource's totals per state (migration 007's triggers): in the trash
   * or not, and, when `archived`, archived or not.
   */
  counted?: { archived: boolean }
  /**
   * Partial indexes holding only the records of a state (the trash, the archive), by the list
   * conditions that imply their WHERE (which must be literal SQL, not a bound parameter, for
   * SQLite to use them). A counted list of such a state with few records is read through them.
   */
  stateIndexes?: Array<{ index: string; state: { deleted?: boolean; archived?: boolean } }>
  /**
   * Every list condition of this resource reads the record's own row (and its full-text entry)
   * only: a new record then changes no other record's place in a list, so cached pages and
   * counts are carried across the user's creations (query-cache.ts). Not events: an override
   * lists while its series is out of the trash. The carrying relies on every write of such a
   * resource telling the cache which one row it changed: a writer changing several rows at once
   * (a bulk edit, a cascade, a trigger on another row) must bump the user's cache without naming one.
   */
  rowLocalFilters?: boolean
  /** Hides records unless the query asks for them (notes: archived). */
  hiddenByDefault?(query: ListQuery): SqlClause | null
  /** Projection for `format=compact` (null and empty values are dropped by the engine). */
  compact(record: ApiRecord): Record<string, unknown>
  /** Repeating records (events' recurrence). */
  expansion?: RangeExpansion
  /** Response schema of one list item beyond record/compact (e.g. occurrence markers). */
  listItem?: TSchema
  /**
   * How the resource's records are shared (sharing/access.ts): the kind of collection a share
   * names, and the column holding the collection a record belongs to (a calendar's name, a
   * task list's name, a note's own id); null when the user has one collection of this kind
   * (the address book). A resource without it is never shared.
   */
  sharing?: { kind: ShareKind; column: string | null }
  /**
   * Records naming members among their `attendees` (events): those members read them and answer
   * them (sharing/access.ts, the `records_invitations` index kept by triggers).
   */
  invitations?: boolean
}

/** What a share names: a calendar, the address book, a task list or one note. */
export type ShareKind = 'calendar' | 'addressbook' | 'tasklist' | 'note'
