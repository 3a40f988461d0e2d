// What a page's items are made of, and how many of them the answer's byte budget may read.
import { ByteBudget } from '../../../lib/byte-budget.js'
import { jsonBytesAtLeast } from '../../../lib/json-size.js'
import type { ListerParts, Ranked } from './list-types.js'
import type { ApiRecord, ListQuery } from './types.js'

/** Accepts records while the lower bound of their items' bytes fits `bytes`; the first always. */
export function within(parts: ListerParts, bytes: number, q: ListQuery): (record: ApiRecord) => boolean {
  const budget = new ByteBudget(bytes)
  let first = true
  return (record) => {
    const item = q.format === 'compact' ? dropEmpty(parts.def.compact(record)) : record
    const fits = budget.take(jsonBytesAtLeast(item) + 1)
    // The first record goes alone when it passes the budget: nothing is read after it.
    if (!fits && first) budget.take(budget.remaining)
    const accepted = fits || first
    first = false
    return accepted
  }
}

export function project(parts: ListerParts, rows: Ranked[], q: ListQuery): Record<string, unknown>[] {
  if (q.format !== 'compact') return rows.map((r) => r.record)
  return rows.map((r) => dropEmpty(parts.def.compact(r.record)))
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
