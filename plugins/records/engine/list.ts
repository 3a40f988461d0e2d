import type Database from 'better-sqlite3'
import { runSteps, type Steps } from '../../../lib/paced-stream.js'
import type { Maintain, QueryCache } from './query-cache.js'
import { ftsQuery, ownedMatch } from './fts.js'
import type { RecordStore } from './store.js'
import type { StartsCache } from './starts-cache.js'
import type { ApiRecord, ListContext, ListQuery, ResourceDefinition, SqlClause } from './types.js'
import { keptTotal, ownersWorthNaming, rowsOutside, SMALL_VIEW, viewIndex } from './list-counts.js'
import { MAX_EXPANDED, ordered, overridden, startsOf, tooManyOccurrences } from './list-expansion.js'
import { matcher, pageAfter, satisfying } from './list-maintenance.js'
import { comparator, keyset, orderBy } from './list-order.js'
import { project, within } from './list-projection.js'
import type { ListerParts, ListView, Page, PageKeys, Ranked } from './list-types.js'

export { SMALL_VIEW } from './list-counts.js'
export { MAX_EXPANDED } from './list-expansion.js'
export { dropEmpty } from './list-projection.js'
export type { ListView, Page } from './list-types.js'

const MAX_SERIES = 5000

/** Searches matching more records than this are ordered by the default sort, not by relevance. */
export const RANK_LIMIT = 5000

/**
 * List queries: the common parameters (deleted state, source, tag AND,
 * search) plus the resource's own filters, one sort key with the sequence
 * number as tie-breaker (stable pages, and the key's index serves the order),
 * bm25 ranking when searching without an explicit sort, and the expansion of
 * repeating records (events) into occurrences for ranged queries.
 */
export class RecordLister {
  private readonly statements = new Map<string, Database.Statement>()
  private readonly parts: ListerParts

  constructor(
    private readonly db: Database.Database,
    private readonly def: ResourceDefinition,
    private readonly store: RecordStore,
    /** Totals and page keys of recent queries; null: query every time (the bench times the queries). */
    private readonly cache: QueryCache | null,
    /** Series' starts per window (starts-cache.ts); null: expanded every time. */
    private readonly starts: StartsCache | null = null,
  ) {
    this.parts = { def, cache, prepare: (sql) => this.prepare(sql) }
  }

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
    const match = words ? ownedMatch(words, ownersWorthNaming(this.parts, view)) : null
    const { table, weights } = this.def.fts
    const expansion = this.def.expansion
    const matches = matcher(this.parts, match)
    const count = (extra: SqlClause[]) => {
      const all = [...where, ...extra]
      if (!match) {
        const kept = keptTotal(this.parts, userId, all)
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
        const outside = match && extra.length === 0 ? rowsOutside(this.parts, userId, where) : null
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
            written.every((w) => w.created || w.resource !== this.def.name)
              ? n + satisfying(this.parts, written, all, matches).length
              : undefined
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
    const order = orderBy(this.parts, q, ranked)
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
        : [keyset(this.parts, scope, q, (Boolean(match) && q.sort === undefined) || (expansion !== undefined && window !== null))]),
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
      total ??= match ? null : keptTotal(this.parts, userId, where)
      if (total !== null && q.after === undefined && q.offset >= total) return { items: [], total }
      // A small trash or archive among many records: without statistics SQLite walks the sort key's
      // index over every record in search of the few (0.5 s at 1,000,000 notes, 2.5 s sorted by
      // title); the counters know the view is small, so its partial index serves and the sort is in memory.
      const view = !match && total !== null && total <= SMALL_VIEW ? viewIndex(this.parts, where) : null
      if (view) source = `${this.def.name} t INDEXED BY ${view}`
      // Ranked pages are not carried across a creation: any new row of the full-text index moves bm25.
      const maintain =
        ranked || !this.def.rowLocalFilters
          ? undefined
          : pageAfter(
              this.parts,
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
        bytes === undefined ? undefined : within(this.parts, bytes, q),
      )
      // A short first page already is the whole result: no count query needed.
      total ??= q.offset === 0 && q.after === undefined && keyCount < q.limit ? keyCount : count([])
      return { items: project(this.parts, rows, q), total }
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
    const replaced = overridden(this.parts, expansion, series)
    const kept = this.starts?.window(`${window.from}/${window.to}`) ?? null
    const lists: Float64Array[] = []
    const owners: Ranked[] = []
    let expanded = 0
    for (const [i, s] of series.entries()) {
      const { starts: all, computed } = startsOf(this.parts, expansion, s.record, window, kept)
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
    const compare = comparator(this.parts, q, ranked, expansion.column)
    const occurrenceAt = ordered(this.parts, q, ranked, expansion.column, lists, owners, compare, q.offset + q.limit)
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
    const accept = bytes === undefined ? undefined : within(this.parts, bytes, q)
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
    return { items: project(this.parts, page, q), total: plainTotal + expanded }
  }
}
