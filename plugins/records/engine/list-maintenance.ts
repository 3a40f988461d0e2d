// Keeping a cached page or count valid across the user's writes instead of querying again.
import type { Maintain, Written } from './query-cache.js'
import type { ListerParts, PageKeys } from './list-types.js'
import type { ListQuery, SqlClause } from './types.js'

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
export function pageAfter(
  parts: ListerParts,
  q: ListQuery,
  order: string,
  clauses: SqlClause[],
  matches: ((seq: number) => boolean) | null,
): Maintain<PageKeys> {
  return (keys, written) => {
    const mine = written.filter((w) => w.resource === parts.def.name)
    const changed = new Set(mine.map((w) => w.seq))
    const added = satisfying(parts, mine, clauses, matches)
    const touched = keys.some((k) => changed.has(k.seq))
    if (added.length === 0 && !touched && (q.offset === 0 || mine.every((w) => w.created))) return keys
    if (q.offset !== 0) return undefined
    const kept = keys.filter((k) => !changed.has(k.seq))
    const sql = `SELECT t.seq AS seq FROM ${parts.def.name} t WHERE t.seq IN (SELECT value FROM json_each(?)) ${order}`
    const sorted = parts.prepare(sql).all(JSON.stringify([...kept.map((k) => k.seq), ...added])) as PageKeys
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
export function satisfying(
  parts: ListerParts,
  written: Written[],
  clauses: SqlClause[],
  matches: ((seq: number) => boolean) | null,
): number[] {
  const seqs = written.filter((c) => c.resource === parts.def.name).map((c) => c.seq)
  if (seqs.length === 0) return []
  // CROSS JOIN: each row by its primary key (left to the planner, the user_id term walks the user's index).
  const sql = `SELECT t.seq FROM json_each(?) j CROSS JOIN ${parts.def.name} t ON t.seq = j.value WHERE ${clauses.map((c) => c.sql).join(' AND ')}`
  const found = parts
    .prepare(sql)
    .pluck()
    .all(JSON.stringify(seqs), ...clauses.flatMap((c) => c.params)) as number[]
  return matches ? found.filter(matches) : found
}

/**
 * Whether a record matches the search, asked of the full-text index once per record and listing
 * (the count and the page both ask; a prefix query costs ~0.25 ms at 1,000,000 notes).
 */
export function matcher(parts: ListerParts, match: string | null): ((seq: number) => boolean) | null {
  if (!match) return null
  const { table } = parts.def.fts
  // CAST: bound to a JS number (a REAL to better-sqlite3), `rowid = ?` is ignored by FTS5, which answers every match.
  const stmt = parts.prepare(`SELECT 1 FROM ${table} WHERE ${table} MATCH ? AND rowid = CAST(? AS INTEGER)`).pluck()
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
