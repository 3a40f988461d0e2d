// A list's order: in SQL, in code for merged results, and as the position `after=<id>` pages from.
import { invalidQuery } from './validate.js'
import type { ListerParts, Ranked } from './list-types.js'
import type { ListQuery, SqlClause } from './types.js'

export function orderBy(parts: ListerParts, q: ListQuery, ranked: boolean): string {
  if (ranked) return 'ORDER BY f.rank ASC, t.seq DESC'
  const key = q.sort ?? parts.def.sort.default
  const dir = (q.order ?? parts.def.sort.order).toUpperCase()
  const col = sortColumn(parts, key)
  const nulls = parts.def.sort.nullable?.includes(key) ? ' NULLS LAST' : ''
  return `ORDER BY ${col} ${dir}${nulls}, t.seq ${dir}`
}

/** The SQL a sort key orders by: its column (case-folded for `nocase` keys) or its expression. */
export function sortColumn(parts: ListerParts, key: string, alias = 't'): string {
  const expression = parts.def.sort.expressions?.[key]
  if (expression) return expression(alias)
  return parts.def.sort.nocase?.includes(key) ? `${alias}.${key} COLLATE NOCASE` : `${alias}.${key}`
}

/** The SQL order, in code, for merged results. */
export function comparator(parts: ListerParts, q: ListQuery, ranked: boolean, expandedColumn?: string): (a: Ranked, b: Ranked) => number {
  if (ranked) return (a, b) => a.rank - b.rank || b.seq - a.seq
  const key = q.sort ?? parts.def.sort.default
  const sign = (q.order ?? parts.def.sort.order) === 'desc' ? -1 : 1
  const nocase = parts.def.sort.nocase?.includes(key)
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

/**
 * `after=<id>` (keyset paging): the records that follow that one in the list's order, found
 * through the sort key's index instead of skipping `offset` entries one by one (at 1,000,000
 * notes `offset=500000` walks half a million index entries). The anchor is the caller's own
 * record, in the trash or not; its sort value and sequence number are the position.
 */
export function keyset(parts: ListerParts, scope: SqlClause, q: ListQuery, unordered: boolean): SqlClause {
  // A search without sort is ranked (or, past RANK_LIMIT matches, not): refused either way, so
  // whether a client may page by keyset never depends on how many records match.
  if (unordered) {
    throw invalidQuery('after', 'unsupported', 'after cannot page a search ranked by relevance or a ranged list of events: use offset')
  }
  const key = q.sort ?? parts.def.sort.default
  const raw = parts.def.sort.expressions?.[key]?.('t') ?? `t.${key}`
  const anchor = parts
    .prepare(`SELECT ${raw} AS value, t.seq AS seq FROM ${parts.def.name} t WHERE t.id = ? AND ${scope.sql}`)
    .get(q.after, ...scope.params) as { value: unknown; seq: number } | undefined
  if (!anchor) throw invalidQuery('after', 'not_found', `after names no ${parts.def.singular} you may read`)
  const op = (q.order ?? parts.def.sort.order) === 'desc' ? '<' : '>'
  const col = sortColumn(parts, key)
  const value = parts.def.sort.expressions?.[key]?.('t') ?? `t.${key}`
  const nullable = parts.def.sort.nullable?.includes(key) ?? false
  // NULLS LAST: after a null come only nulls; after a value, the nulls still follow.
  if (anchor.value === null) return { sql: `(${value} IS NULL AND t.seq ${op} ?)`, params: [anchor.seq] }
  // The first term bounds the index range; the second breaks ties on the sort value by sequence.
  const sql = `(${col} ${op}= ? AND (${col} ${op} ? OR t.seq ${op} ?))`
  return {
    sql: nullable ? `(${sql} OR ${value} IS NULL)` : sql,
    params: [anchor.value, anchor.value, anchor.seq],
  }
}
