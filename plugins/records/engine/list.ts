import type Database from 'better-sqlite3'
import { HttpError } from '../../../core/plugin-api.js'
import { ByteBudget } from '../../../lib/byte-budget.js'
import { jsonBytesAtLeast } from '../../../lib/json-size.js'
import { runSteps, type Steps } from '../../../lib/paced-stream.js'
import { mergeFirst } from '../../../lib/sorted-merge.js'
import type { Maintain, QueryCache, Written } from './query-cache.js'
import { ftsQuery, ownedMatch } from './fts.js'
import { invalidQuery } from './validate.js'
import type { RecordStore } from './store.js'
import type { StartsCache, WindowStarts } from './starts-cache.js'
import type { ApiRecord, ListContext, ListQuery, ResourceDefinition, SqlClause } from './types.js'

/**
 * List queries: the common parameters (deleted state, source, tag AND,
 * search) plus the resource's own filters, one sort key with the sequence
 * number as tie-breaker (stable pages, and the key's index serves the order),
 * bm25 ranking when searching without an explicit sort, and the expansion of
 * repeating records (events) into occurrences for ranged queries.
 */
export interface Page {
  items: Record<string, unknown>[]
  total: number
}

interface Ranked {
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
  /** Every member whose records `scope` may include: a search asks the full-text index for theirs only. */
  owners: readonly string[]
}

/** A page's keys as the query cache holds them: sequence numbers in order, with the rank when ranked. */
type PageKeys = Array<{ seq: number; rank?: number }>

const MAX_SERIES = 5000
/** docs/api.md: a list expands at most this many occurrences per request; past that, 422. */
export const MAX_EXPANDED = 10_000

function tooManyOccurrences(window: { from: number | null; to: number | null }): HttpError {
  const range = `${window.from === null ? 'the start' : new Date(window.from).toISOString()} to ${window.to === null ? 'a year later' : new Date(window.to).toISOString()}`
  return new HttpError(
    'UNPROCESSABLE',
    `the range ${range} holds more than ${MAX_EXPANDED} occurrences of repeating events: ask for a shorter range`,
    {
      field: 'from',
      constraint: 'max_occurrences',
    },
  )
}
/** The state every condition selects, merged; null when some condition is not a state (a tag, a source...). */
function stateOf(clauses: SqlClause[]): { deleted?: boolean; archived?: boolean } | null {
  const state: { deleted?: boolean; archived?: boolean } = {}
  for (const c of clauses) {
    if (!c.state) return null
    Object.assign(state, c.state)
  }
  return state
}

/** SQL selecting one state: in the trash or not, and (null: the resource has no archive) archived or not. */
function combo(deleted: boolean, archived: boolean | null): string {
  return `deleted_at IS ${deleted ? 'NOT ' : ''}NULL${archived === null ? '' : ` AND archived = ${archived ? 1 : 0}`}`
}

/** A view of a state this small is read through its partial index and sorted in memory. */
export const SMALL_VIEW = 5000

/** Searches matching more records than this are ordered by the default sort, not by relevance. */
export const RANK_LIMIT = 5000

export class RecordLister {
  private readonly statements = new Map<string, Database.Statement>()

  constructor(
    private readonly db: Database.Database,
    private readonly def: ResourceDefinition,
    private readonly store: RecordStore,
    /** Totals and page keys of recent queries; null: query every time (the bench times the queries). */
    private readonly cache: QueryCache | null,
    /** Series' starts per window (starts-cache.ts); null: expanded every time. */
    private readonly starts: StartsCache | null = null,
  ) {}

  private prepare(sql: string): Database.Statement {
    let stmt = this.statements.get(sql)
    if (!stmt) {
      if (this.statements.size > 500) this.statements.clear()
      stmt = this.db.prepare(sql)
      this.statements.set(sql, stmt)
    }
    return stmt
  }

  private clauses(scope: SqlClause, q: ListQuery, ctx: ListContext): SqlClause[] {
    const out: SqlClause[] = [scope]
    if (q.only_deleted) out.push({ sql: 't.deleted_at IS NOT NULL', params: [], state: { deleted: true } })
    else if (!q.include_deleted) out.push({ sql: 't.deleted_at IS NULL', params: [], state: { deleted: false } })
    const hidden = this.def.hiddenByDefault?.(q)
    if (hidden) out.push(hidden)
    if (q.source !== undefined) out.push({ sql: 't.source = ?', params: [q.source] })
    // instr() on the JSON text (in the covering index) rules most rows out before json_each confirms.
    for (const tag of new Set(q.tag ?? [])) {
      out.push({
        sql: 'instr(t.tags, ?) > 0 AND EXISTS (SELECT 1 FROM json_each(t.tags) WHERE value = ?)',
        params: [JSON.stringify(tag), tag],
      })
    }
    out.push(...this.def.filters(q, ctx))
    return out
  }

  private orderBy(q: ListQuery, ranked: boolean): string {
    if (ranked) return 'ORDER BY f.rank ASC, t.seq DESC'
    const key = q.sort ?? this.def.sort.default
    const dir = (q.order ?? this.def.sort.order).toUpperCase()
    const col = this.sortColumn(key)
    const nulls = this.def.sort.nullable?.includes(key) ? ' NULLS LAST' : ''
    return `ORDER BY ${col} ${dir}${nulls}, t.seq ${dir}`
  }

  /** The SQL a sort key orders by: its column (case-folded for `nocase` keys) or its expression. */
  private sortColumn(key: string, alias = 't'): string {
    const expression = this.def.sort.expressions?.[key]
    if (expression) return expression(alias)
    return this.def.sort.nocase?.includes(key) ? `${alias}.${key} COLLATE NOCASE` : `${alias}.${key}`
  }

  /**
   * One page. `bytes`: the answer's byte budget; reading stops at the first record that cannot fit
   * it any more (the core cuts the page to the exact bytes; this only keeps the work within them).
   */
  list(view: ListView, q: ListQuery, ctx: ListContext, bytes?: number): Page {
    return runSteps(this.listSteps(view, q, ctx, bytes))
  }

  /** The page as steps that pause between the chunks of records read (a large page is megabytes of rows). */
  *listSteps(view: ListView, q: ListQuery, ctx: ListContext, bytes?: number): Steps<Page> {
    const { userId, scope, visible } = view
    const where = this.clauses(scope, q, ctx)
    const search = q.search?.trim()
    const words = search ? ftsQuery(search) : null
    if (search && !words) return { items: [], total: 0 }
    // Every use of the index below (count, rank, page, matcher) asks the same expression.
    const match = words ? ownedMatch(words, this.ownersWorthNaming(view)) : null
    const { table, weights } = this.def.fts
    const expansion = this.def.expansion
    const matches = this.matcher(match)
    const count = (extra: SqlClause[]) => {
      const all = [...where, ...extra]
      if (!match) {
        const kept = this.kept(userId, all)
        if (kept !== null) return kept
      }
      const from = match
        ? `(SELECT rowid AS fts_rowid FROM ${table} WHERE ${table} MATCH ?) f JOIN ${this.def.name} t ON t.seq = f.fts_rowid`
        : `${this.def.name} t`
      const sql = `SELECT count(*) AS n FROM ${from} WHERE ${all.map((c) => c.sql).join(' AND ')}`
      const params = [...(match ? [match] : []), ...all.flatMap((c) => c.params)]
      const run = () => {
        // Counting a search walks the matches (few) rather than the user's records (many): every
        // match minus those outside the view, no row of the wide table read.
        const outside = match && extra.length === 0 ? this.outside(userId, where) : null
        if (!outside) return (this.prepare(sql).get(...params) as { n: number }).n
        const matches = this.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck().get(match) as number
        // The matches are read once and the rows outside probed in them: `rowid IN (...)` on the
        // index asked FTS5 the whole query again per row outside (50 rows: 100 ms for a common word).
        // MATERIALIZED: else SQLite pushes the probe into each arm, reading a row per match.
        const inside = `WITH o AS MATERIALIZED (${outside.sql}) SELECT count(*) FROM o WHERE o.seq IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)`
        return (
          matches -
          (this.prepare(inside)
            .pluck()
            .get(...outside.params, match) as number)
        )
      }
      // A record created since is one more in the count when it satisfies the conditions; one
      // changed may have been counted before or not: counted again.
      const maintain: Maintain<number> | undefined = this.def.rowLocalFilters
        ? (n, written) =>
            written.every((w) => w.created || w.resource !== this.def.name) ? n + this.satisfying(written, all, matches).length : undefined
        : undefined
      return this.cache ? this.cache.through(userId, `${sql}\u0000${JSON.stringify(params)}`, run, maintain) : run()
    }
    // Ranking sorts every match by bm25; past RANK_LIMIT matches (a very common word) the
    // default order serves instead, walking its index (documented in README.md).
    let total: number | null = null
    let ranked = Boolean(match) && q.sort === undefined
    if (ranked) {
      total = count([])
      ranked = total <= RANK_LIMIT
    }
    const order = this.orderBy(q, ranked)
    let source = ranked
      ? `${this.def.name} t JOIN (SELECT rowid AS fts_rowid, bm25(${table}, ${weights.join(', ')}, 0) AS rank FROM ${table} WHERE ${table} MATCH ?) f ON f.fts_rowid = t.seq`
      : `${this.def.name} t`
    const window = expansion?.window(q, ctx) ?? null
    const matched = match && !ranked ? { sql: `t.seq IN (SELECT rowid FROM ${table} WHERE ${table} MATCH ?)`, params: [match] } : null
    const filters = [
      ...where,
      ...(matched ? [matched] : []),
      ...(q.after === undefined
        ? []
        : [this.keyset(scope, q, (Boolean(match) && q.sort === undefined) || (expansion !== undefined && window !== null))]),
    ]

    // Page first (sequence numbers and rank only), full rows after: sorting narrow rows is cheap.
    let keyCount = 0
    const run = (
      extra: SqlClause[],
      tail: string,
      tailParams: unknown[],
      maintain?: Maintain<PageKeys>,
      accept?: (record: ApiRecord) => boolean,
    ): Steps<Ranked[]> => {
      const all = [...filters, ...extra]
      const sql = `SELECT t.seq AS seq${ranked ? ', f.rank AS rank' : ''} FROM ${source} WHERE ${all.map((c) => c.sql).join(' AND ')} ${order} ${tail}`
      const params = [...(ranked ? [match] : []), ...all.flatMap((c) => c.params), ...tailParams]
      const page = () => this.prepare(sql).all(...params) as PageKeys
      const keys = this.cache ? this.cache.through(userId, `${sql}\u0000${JSON.stringify(params)}`, page, maintain) : page()
      keyCount = keys.length
      const ranks = ranked ? new Map(keys.map((k) => [k.seq, k.rank ?? 0])) : null
      // Scoped beyond the caller's own rows, the keys say which records; each is asked again whether it may be read.
      const read = this.store.bySeqsSteps(
        visible ? null : userId,
        keys.map((k) => k.seq),
        accept,
      )
      return (function* () {
        const rows = yield* read
        return rows
          .filter(({ record }) => !visible || visible(record))
          .map(({ seq, record }) => ({ record, seq, rank: ranks?.get(seq) ?? 0 }))
      })()
    }

    if (!expansion || !window) {
      // Totals the counters keep come first: a page past them (an empty trash or archive among a
      // million notes) is known to be empty without walking the index in search of it.
      total ??= match ? null : this.kept(userId, where)
      if (total !== null && q.after === undefined && q.offset >= total) return { items: [], total }
      // A small trash or archive among many records: without statistics SQLite walks the sort key's
      // index over every record in search of the few (0.5 s at 1,000,000 notes, 2.5 s sorted by
      // title); the counters know the view is small, so its partial index serves and the sort is in memory.
      const view = !match && total !== null && total <= SMALL_VIEW ? this.viewIndex(where) : null
      if (view) source = `${this.def.name} t INDEXED BY ${view}`
      // Ranked pages are not carried across a creation: any new row of the full-text index moves bm25.
      const maintain =
        ranked || !this.def.rowLocalFilters
          ? undefined
          : this.pageAfter(
              q,
              order,
              filters.filter((c) => c !== matched),
              matches,
            )
      const rows = yield* run(
        [],
        'LIMIT ? OFFSET ?',
        [q.limit, q.offset],
        maintain,
        bytes === undefined ? undefined : this.within(bytes, q),
      )
      // A short first page already is the whole result: no count query needed.
      total ??= q.offset === 0 && q.after === undefined && keyCount < q.limit ? keyCount : count([])
      return { items: this.project(rows, q), total }
    }

    // Plain records in the window come from SQL; repeating ones are expanded here, then both merge.
    const col = `t.${expansion.column}`
    const range: SqlClause[] = []
    if (window.from !== null) range.push({ sql: `${col} >= ?`, params: [new Date(window.from).toISOString()] })
    if (window.to !== null) range.push({ sql: `${col} <= ?`, params: [new Date(window.to).toISOString()] })
    const plain = [{ sql: `NOT (${expansion.repeatingSql})`, params: [] }, ...range]
    const series = yield* run([{ sql: expansion.repeatingSql, params: [] }, ...range.slice(window.from !== null ? 1 : 0)], 'LIMIT ?', [
      MAX_SERIES,
    ])
    // Occurrences are start times until they make the page: each series' starts in the window (kept
    // per series and version, starts-cache.ts), less those its overrides replace; numbers, never records.
    const replaced = this.overridden(expansion, series)
    const kept = this.starts?.window(`${window.from}/${window.to}`) ?? null
    const lists: Float64Array[] = []
    const owners: Ranked[] = []
    let expanded = 0
    for (const [i, s] of series.entries()) {
      const { starts: all, computed } = this.startsOf(expansion, s.record, window, kept)
      const skip = replaced.get(s.record.id as string)
      const starts = skip ? all.filter((at) => !skip.has(at)) : all
      expanded += starts.length
      if (expanded > MAX_EXPANDED) throw tooManyOccurrences(window)
      if (starts.length > 0) {
        lists.push(starts)
        owners.push(s)
      }
      // A paced caller may give the event loop back after an expansion (starts found kept cost little).
      if (computed || i % 256 === 255) yield
    }
    const compare = this.comparator(q, ranked, expansion.column)
    const occurrenceAt = this.ordered(q, ranked, expansion.column, lists, owners, compare, q.offset + q.limit)
    const plainTotal = count(plain)
    // How many occurrences come before the page: the split of the first `offset` items between the
    // occurrences and the plain rows, found by bisection with one plain row's sort key at a time,
    // so that only the page's own plain rows are read whole (not the offset + limit before them).
    const key = q.sort ?? this.def.sort.default
    const plainAt = (i: number): Ranked => {
      const all = [...filters, ...plain]
      const sql = `SELECT t.seq AS seq, t.${key} AS sortKey${ranked ? ', f.rank AS rank' : ''} FROM ${source} WHERE ${all.map((c) => c.sql).join(' AND ')} ${order} LIMIT 1 OFFSET ?`
      const row = this.prepare(sql).get(...(ranked ? [match] : []), ...all.flatMap((c) => c.params), i) as
        { seq: number; sortKey: unknown; rank?: number } | undefined
      if (!row) throw new Error('a plain row counted is not found')
      return { seq: row.seq, rank: row.rank ?? 0, record: { [key]: row.sortKey } as ApiRecord }
    }
    const offset = Math.min(q.offset, plainTotal + expanded)
    let lo = Math.max(0, offset - plainTotal)
    let hi = Math.min(offset, expanded)
    let before = lo
    while (lo <= hi) {
      const k = (lo + hi) >> 1
      if (k < expanded && offset - k > 0 && compare(plainAt(offset - k - 1), occurrenceAt(k)) > 0) lo = k + 1
      else if (k > 0 && offset - k < plainTotal && compare(occurrenceAt(k - 1), plainAt(offset - k)) > 0) hi = k - 1
      else {
        before = k
        break
      }
    }
    const accept = bytes === undefined ? undefined : this.within(bytes, q)
    const plainRows = yield* run(plain, 'LIMIT ? OFFSET ?', [q.limit, offset - before], undefined, accept)
    const onPage: Ranked[] = []
    for (let k = before; k < Math.min(expanded, before + q.limit); k++) onPage.push(occurrenceAt(k))
    let merged = [...plainRows, ...onPage].sort(compare)
    // The budget stopped the plain rows early: past the last one read, a plain row left unread could
    // sort before an occurrence, so the page ends there (the client continues from its length).
    if (plainRows.length < Math.min(q.limit, plainTotal - (offset - before))) {
      merged = merged.slice(0, merged.indexOf(plainRows[plainRows.length - 1] as Ranked) + 1)
    }
    const page = merged.slice(0, q.limit).map((r) => (r.at === undefined ? r : { ...r, record: expansion.occurrence(r.record, r.at) }))
    return { items: this.project(page, q), total: plainTotal + expanded }
  }

  /**
   * How a cached page P (`LIMIT limit OFFSET offset` of the rows R satisfying `clauses` and,
   * searching, `matches`, in `order`) follows the user's writes of single records W, each in its
   * own row only. What was known: the records of P, in order; every other row of R sorts after
   * P's last. What is known now: which records of W satisfy the conditions (N). R becomes
   * (R minus W's old versions) plus N, so:
   * - no record of W in P and none in N: the same page (a changed record was not in P; a created
   *   one was in no result), at any offset when every record of W was created, else on the first;
   * - on the first page, S = (P minus W) plus N in order: when P was all of R (shorter than the
   *   limit), S is the new R; otherwise its first `limit` are the page only when they hold that
   *   many and sort no later than the last record of P left unchanged (rows of R past P, unknown
   *   here, sort after that one: a record of N sorting past it might be preceded by one of them);
   * - else (a later page, a page that would lose rows to the unknown): computed again.
   */
  private pageAfter(q: ListQuery, order: string, clauses: SqlClause[], matches: ((seq: number) => boolean) | null): Maintain<PageKeys> {
    return (keys, written) => {
      const mine = written.filter((w) => w.resource === this.def.name)
      const changed = new Set(mine.map((w) => w.seq))
      const added = this.satisfying(mine, clauses, matches)
      const touched = keys.some((k) => changed.has(k.seq))
      if (added.length === 0 && !touched && (q.offset === 0 || mine.every((w) => w.created))) return keys
      if (q.offset !== 0) return undefined
      const kept = keys.filter((k) => !changed.has(k.seq))
      const sql = `SELECT t.seq AS seq FROM ${this.def.name} t WHERE t.seq IN (SELECT value FROM json_each(?)) ${order}`
      const sorted = this.prepare(sql).all(JSON.stringify([...kept.map((k) => k.seq), ...added])) as PageKeys
      if (keys.length < q.limit) return sorted.slice(0, q.limit)
      const last = kept[kept.length - 1]
      const at = last ? sorted.findIndex((k) => k.seq === last.seq) : -1
      return sorted.length >= q.limit && at >= q.limit - 1 ? sorted.slice(0, q.limit) : undefined
    }
  }

  /**
   * The sequence numbers among these records of this resource, as they are now, that satisfy
   * `clauses` and, searching, `matches`: a few lookups by primary key.
   */
  private satisfying(written: Written[], clauses: SqlClause[], matches: ((seq: number) => boolean) | null): number[] {
    const seqs = written.filter((c) => c.resource === this.def.name).map((c) => c.seq)
    if (seqs.length === 0) return []
    // CROSS JOIN: each row by its primary key (left to the planner, the user_id term walks the user's index).
    const sql = `SELECT t.seq FROM json_each(?) j CROSS JOIN ${this.def.name} t ON t.seq = j.value WHERE ${clauses.map((c) => c.sql).join(' AND ')}`
    const found = this.prepare(sql)
      .pluck()
      .all(JSON.stringify(seqs), ...clauses.flatMap((c) => c.params)) as number[]
    return matches ? found.filter(matches) : found
  }

  /**
   * Whether a record matches the search, asked of the full-text index once per record and listing
   * (the count and the page both ask; a prefix query costs ~0.25 ms at 1,000,000 notes).
   */
  private matcher(match: string | null): ((seq: number) => boolean) | null {
    if (!match) return null
    const { table } = this.def.fts
    // CAST: bound to a JS number (a REAL to better-sqlite3), `rowid = ?` is ignored by FTS5, which answers every match.
    const stmt = this.prepare(`SELECT 1 FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`).pluck()
    const known = new Map<number, boolean>()
    return (seq) => {
      let found = known.get(seq)
      if (found === undefined) {
        found = stmt.get(match, seq) !== undefined
        known.set(seq, found)
      }
      return found
    }
  }

  /**
   * `after=<id>` (keyset paging): the records that follow that one in the list's order, found
   * through the sort key's index instead of skipping `offset` entries one by one (at 1,000,000
   * notes `offset=500000` walks half a million index entries). The anchor is the caller's own
   * record, in the trash or not; its sort value and sequence number are the position.
   */
  private keyset(scope: SqlClause, q: ListQuery, unordered: boolean): SqlClause {
    // A search without sort is ranked (or, past RANK_LIMIT matches, not): refused either way, so
    // whether a client may page by keyset never depends on how many records match.
    if (unordered) {
      throw invalidQuery('after', 'unsupported', 'after cannot page a search ranked by relevance or a ranged list of events: use offset')
    }
    const key = q.sort ?? this.def.sort.default
    const raw = this.def.sort.expressions?.[key]?.('t') ?? `t.${key}`
    const anchor = this.prepare(`SELECT ${raw} AS value, t.seq AS seq FROM ${this.def.name} t WHERE t.id = ? AND ${scope.sql}`).get(
      q.after,
      ...scope.params,
    ) as { value: unknown; seq: number } | undefined
    if (!anchor) throw invalidQuery('after', 'not_found', `after names no ${this.def.singular} you may read`)
    const op = (q.order ?? this.def.sort.order) === 'desc' ? '<' : '>'
    const col = this.sortColumn(key)
    const value = this.def.sort.expressions?.[key]?.('t') ?? `t.${key}`
    const nullable = this.def.sort.nullable?.includes(key) ?? false
    // NULLS LAST: after a null come only nulls; after a value, the nulls still follow.
    if (anchor.value === null) return { sql: `(${value} IS NULL AND t.seq ${op} ?)`, params: [anchor.seq] }
    // The first term bounds the index range; the second breaks ties on the sort value by sequence.
    const sql = `(${col} ${op}= ? AND (${col} ${op} ? OR t.seq ${op} ?))`
    return {
      sql: nullable ? `(${sql} OR ${value} IS NULL)` : sql,
      params: [anchor.value, anchor.value, anchor.seq],
    }
  }

  /**
   * The total from records_counts (migration 007) when every condition only selects a state it
   * keeps; null when some other filter applies and the rows must be counted.
   */
  private kept(userId: string, clauses: SqlClause[]): number | null {
    const state = this.def.counted ? stateOf(clauses) : null
    if (!state) return null
    const sql =
      'SELECT coalesce(sum(n), 0) FROM records_counts WHERE user_id = ? AND resource = ?' +
      (state.deleted === undefined ? '' : ' AND deleted = ?') +
      (state.archived === undefined ? '' : ' AND archived = ?')
    const params = [userId, this.def.name, ...[state.deleted, state.archived].filter((v) => v !== undefined).map(Number)]
    const read = () =>
      this.prepare(sql)
        .pluck()
        .get(...params) as number
    // Cached like the counts it replaces (a statement per listing is a third of a cached list's cost).
    return this.cache ? this.cache.through(userId, `${sql}\u0000${params.join('\u0000')}`, read) : read()
  }

  /**
   * For a search of a state-only view (the usual one: a user's active records) that holds nearly
   * every row of the table: the sequence numbers of the rows outside it (other users' records, the
   * user's records in other states), read from indexes, when records_counts says there are at most
   * SMALL_VIEW of them. The search's total is then every match minus those outside, with no join
   * of the wide rows (10,000 matches at 1,170,000 notes: 18.7 ms joined, 0.5 ms this way).
   */
  private outside(userId: string, where: SqlClause[]): SqlClause | null {
    const state = this.def.counted ? stateOf(where) : null
    const view = state ? this.kept(userId, where) : null
    if (!state || view === null) return null
    const rows = this.prepare('SELECT coalesce(sum(n), 0) FROM records_counts WHERE resource = ?').pluck().get(this.def.name) as number
    if (rows - view > SMALL_VIEW) return null
    const t = this.def.name
    const archivable = this.def.counted?.archived ?? false
    const others: string[] = []
    for (const deleted of [false, true]) {
      for (const archived of archivable ? [false, true] : [null]) {
        const differs =
          (state.deleted !== undefined && state.deleted !== deleted) || (state.archived !== undefined && state.archived !== archived)
        if (differs) others.push(`SELECT seq FROM ${t} WHERE user_id = ? AND ${combo(deleted, archived)}`)
      }
    }
    return {
      sql: [`SELECT seq FROM ${t} WHERE user_id < ?`, `SELECT seq FROM ${t} WHERE user_id > ?`, ...others].join(' UNION ALL '),
      params: [userId, userId, ...others.map(() => userId)],
    }
  }

  /**
   * The owners a search names to the full-text index: the view's, unless they hold most of the
   * resource's records (records_counts says; a resource without counters always names them).
   * Naming them makes FTS5 read their doclists: a member with 50 notes beside 200,000 of another
   * member's skips the other's matches (bm25 and joins: 140 ms, 4 ms), but the owner of nearly every
   * note would read their whole doclist for nothing (+3 ms a query at 200,000 notes). The results
   * are the same either way: the scope decides what is listed.
   */
  private ownersWorthNaming(view: ListView): readonly string[] | null {
    if (!this.def.counted) return view.owners
    const sql =
      'SELECT coalesce(sum(n) FILTER (WHERE user_id IN (SELECT value FROM json_each(?))), 0) * 2 <= coalesce(sum(n), 0) ' +
      'FROM records_counts WHERE resource = ?'
    const params = [JSON.stringify(view.owners), this.def.name]
    const read = () =>
      this.prepare(sql)
        .pluck()
        .get(...params) === 1
    // Counters move with every write; either answer lists the same records, so a stale one only costs time.
    const few = this.cache ? this.cache.through(view.userId, `${sql}\u0000${params.join('\u0000')}`, read) : read()
    return few ? view.owners : null
  }

  /** The partial index holding exactly a state these conditions ask for (the trash, the archive), if any. */
  private viewIndex(clauses: SqlClause[]): string | null {
    const state = stateOf(clauses)
    if (!state) return null
    const view = this.def.stateIndexes?.find((v) => Object.entries(v.state).every(([k, want]) => state[k as keyof typeof state] === want))
    return view?.index ?? null
  }

  /**
   * Series id → the starts its overrides replace (they list as plain records of their own). An
   * override is its series' owner's: asked of each owner among the series (their own index).
   */
  private overridden(expansion: NonNullable<ResourceDefinition['expansion']>, series: Ranked[]): Map<string, Set<number>> {
    const out = new Map<string, Set<number>>()
    const spec = expansion.overrides
    if (!spec || series.length === 0) return out
    const byOwner = new Map<string, string[]>()
    for (const s of series) {
      const owner = String(s.record.owner_id)
      // Pushed, not spread into a new array: 2,500 series of one owner made 3 million copies a list.
      const ids = byOwner.get(owner)
      if (ids) ids.push(s.record.id as string)
      else byOwner.set(owner, [s.record.id as string])
    }
    const columns = `SELECT ${spec.seriesColumn} AS series, ${spec.startColumn} AS start FROM ${this.def.name} WHERE user_id = ?`
    const everyOne = this.prepare(`${columns} AND ${spec.seriesColumn} IS NOT NULL LIMIT ?`)
    const ofSeries = this.prepare(`${columns} AND ${spec.seriesColumn} IN (SELECT value FROM json_each(?))`)
    for (const [owner, ids] of byOwner) {
      // An owner's overrides are usually few (none, often): all of them, from the overrides' index,
      // cost less than looking each series up (500 series: 0.5-1 ms); with as many as series, by series.
      let rows = everyOne.all(owner, ids.length + 1) as Array<{ series: string; start: string }>
      if (rows.length > ids.length) rows = ofSeries.all(owner, JSON.stringify(ids)) as typeof rows
      else if (rows.length > 0) {
        const asked = new Set(ids)
        rows = rows.filter((r) => asked.has(r.series))
      }
      for (const { series: id, start } of rows) {
        const set = out.get(id) ?? new Set<number>()
        set.add(Date.parse(start))
        out.set(id, set)
      }
    }
    return out
  }

  /** A series' starts in the window: those kept while it has not changed since, else expanded now (and kept). */
  private startsOf(
    expansion: NonNullable<ResourceDefinition['expansion']>,
    record: ApiRecord,
    window: { from: number | null; to: number | null },
    kept: WindowStarts | null,
  ): { starts: Float64Array; computed: boolean } {
    const id = record.id as string
    const version = typeof record.etag === 'string' ? record.etag : null
    const hit = version === null ? undefined : kept?.get(id, version)
    if (hit) return { starts: hit, computed: false }
    // One more than a list may expand: enough to know when the window holds too many.
    const starts = Float64Array.from(expansion.starts(record, window, MAX_EXPANDED + 1))
    if (version !== null) kept?.keep(id, version, starts)
    return { starts, computed: true }
  }

  /**
   * The occurrences in the list's order, the k-th (k < `needed`) made when asked for. In the
   * expanded column's order (the usual one): the series' sorted starts merged as far as the page
   * needs (the sequence number breaks ties, as in SQL), never 10,000 items made and sorted for a
   * page of 20. In any other order: every occurrence made and sorted.
   */
  private ordered(
    q: ListQuery,
    ranked: boolean,
    column: string,
    lists: Float64Array[],
    owners: Ranked[],
    compare: (a: Ranked, b: Ranked) => number,
    needed: number,
  ): (k: number) => Ranked {
    const make = (s: Ranked, at: number): Ranked => ({ ...s, at, sortValue: new Date(at).toISOString() })
    const key = q.sort ?? this.def.sort.default
    // Instants and their ISO texts (four-digit years) sort alike: the numbers stand for the texts.
    if (!ranked && key === column && !this.def.sort.nocase?.includes(key)) {
      const desc = (q.order ?? this.def.sort.order) === 'desc'
      const merged = mergeFirst(
        lists,
        owners.map((s) => s.seq),
        needed,
        desc,
      )
      return (k) => {
        const l = merged.list[k]
        if (l === undefined || k >= merged.list.length) throw new Error('an occurrence past those merged was asked for')
        return make(owners[l] as Ranked, (lists[l] as Float64Array)[merged.index[k] as number] as number)
      }
    }
    const all: Ranked[] = []
    lists.forEach((starts, i) => {
      for (const at of starts) all.push(make(owners[i] as Ranked, at))
    })
    all.sort(compare)
    return (k) => all[k] as Ranked
  }

  /** The SQL order, in code, for merged results. */
  private comparator(q: ListQuery, ranked: boolean, expandedColumn?: string): (a: Ranked, b: Ranked) => number {
    if (ranked) return (a, b) => a.rank - b.rank || b.seq - a.seq
    const key = q.sort ?? this.def.sort.default
    const sign = (q.order ?? this.def.sort.order) === 'desc' ? -1 : 1
    const nocase = this.def.sort.nocase?.includes(key)
    const value = (r: Ranked) => {
      const v = r.sortValue !== undefined && key === expandedColumn ? r.sortValue : r.record[key]
      return typeof v === 'string' && nocase ? v.toLowerCase() : (v as string | null)
    }
    return (a, b) => {
      const [x, y] = [value(a), value(b)]
      if (x === y) return sign * (a.seq - b.seq)
      if (x === null) return 1
      if (y === null) return -1
      return sign * (x < y ? -1 : 1)
    }
  }

  /** Accepts records while the lower bound of their items' bytes fits `bytes`; the first always. */
  private within(bytes: number, q: ListQuery): (record: ApiRecord) => boolean {
    const budget = new ByteBudget(bytes)
    let first = true
    return (record) => {
      const item = q.format === 'compact' ? dropEmpty(this.def.compact(record)) : record
      const fits = budget.take(jsonBytesAtLeast(item) + 1)
      // The first record goes alone when it passes the budget: nothing is read after it.
      if (!fits && first) budget.take(budget.remaining)
      const accepted = fits || first
      first = false
      return accepted
    }
  }

  private project(rows: Ranked[], q: ListQuery): Record<string, unknown>[] {
    if (q.format !== 'compact') return rows.map((r) => r.record)
    return rows.map((r) => dropEmpty(this.def.compact(r.record)))
  }
}

/** docs/api.md: compact items drop null and empty values (false and 0 stay). */
export function dropEmpty(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(item)) {
    if (v === null || v === undefined || v === '') continue
    if (Array.isArray(v) && v.length === 0) continue
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0) continue
    out[k] = v
  }
  return out
}
