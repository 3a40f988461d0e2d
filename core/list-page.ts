import { ByteBudget } from '../lib/byte-budget.js'

/**
 * Every list page is written within the answer's byte budget, here, for every list route: items go
 * into the page in order while they fit, and the page ends before the first that would pass the
 * budget (`meta.total` stays the true total; the client continues from `offset + data.length`).
 * The first item is always written, whatever its size: a page that could hold nothing would stop
 * a client paging through records at the first large one, and a record's own size is bounded by
 * its schema and the request body limit, not by this budget.
 */
export const ANSWER_BUDGET = Symbol('hearth.answer-budget')

/** The header a client lowers one answer's budget with (it never raises it). */
export const BUDGET_HEADER = 'x-answer-budget'
/** Below this a page would mostly be its envelope. */
export const MIN_REQUESTED_BUDGET = 4096

/** The budget of one answer: the configured one, or less when the request asks for less. */
export function budgetOf(headers: Record<string, string | string[] | undefined>, configured: number): number {
  const asked = headers[BUDGET_HEADER]
  if (typeof asked !== 'string' || !/^\d{1,12}$/.test(asked)) return configured
  return Math.min(configured, Math.max(MIN_REQUESTED_BUDGET, Number(asked)))
}

type Serialize = (data: unknown) => string

export interface ListWriter {
  /** The route's own serializer for the envelope: it writes the frame around the items. */
  frame: Serialize
  /** The serializer of one item as the route declares it, for the items of this page. */
  itemSerializer(items: unknown[]): Serialize
  /** The configured answer budget, for an envelope that does not carry its own. */
  budget: number
}

const EMPTY_DATA = '"data":[]'

/**
 * Writes `{ data, meta, tier }` item by item within the envelope's budget. An envelope without
 * a list, or whose frame has no `"data":[]` (a schema of another shape), is written as a whole.
 */
export function writeListPage(payload: unknown, w: ListWriter): string {
  const envelope = payload as (Record<string, unknown> & { [ANSWER_BUDGET]?: number }) | null
  const items = envelope?.data
  if (!Array.isArray(items)) return w.frame(payload)
  const frame = w.frame({ ...envelope, data: [] })
  const at = frame.indexOf(EMPTY_DATA)
  if (at < 0) return w.frame(payload)
  const budget = new ByteBudget(envelope?.[ANSWER_BUDGET] ?? w.budget)
  budget.take(Buffer.byteLength(frame))
  const serialize = items.length ? w.itemSerializer(items) : undefined
  const parts: string[] = []
  for (const item of items) {
    const text = (serialize as Serialize)(item)
    // One byte for the comma. The first item goes in whatever its size, alone when it passes the budget.
    if (!budget.take(Buffer.byteLength(text) + 1)) {
      if (parts.length === 0) parts.push(text)
      break
    }
    parts.push(text)
  }
  const open = at + EMPTY_DATA.length - 1
  return `${frame.slice(0, open)}${parts.join(',')}${frame.slice(open)}`
}
