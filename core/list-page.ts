import type { FastifyReply } from 'fastify'
import { ByteBudget } from '../lib/byte-budget.js'
import { jsonBytesAtLeast } from '../lib/json-size.js'
import { pacedStream } from '../lib/paced-stream.js'

/**
 * Every list page is written within the answer's byte budget, here, for every list route: items go
 * into the page in order while they fit, and the page ends before the first that would pass the
 * budget (`meta.total` stays the true total; the client continues from `offset + data.length`).
 * The first item is always written, whatever its size: a page that could hold nothing would stop
 * a client paging through records at the first large one, and a record's own size is bounded by
 * its schema and the request body limit, not by this budget.
 *
 * A large page is streamed: the same bytes, written an item at a time as the client reads, with
 * the event loop given back between pieces (DNS and every other request share it). Serialized in
 * one go, a page near the budget held the loop for most of a second. A small page is still written
 * whole, in the turn that answers it, with its Content-Length: streaming it would only add work.
 */
export const ANSWER_BUDGET = Symbol('hearth.answer-budget')

/** The header a client lowers one answer's budget with (it never raises it). */
export const BUDGET_HEADER = 'x-answer-budget'
/** Below this a page would mostly be its envelope. */
export const MIN_REQUESTED_BUDGET = 4096
/**
 * Pages whose items take at least this many bytes are streamed (sent chunked, without Content-Length).
 * Writing this much in one go takes about a millisecond; below it, a stream costs more than it saves.
 */
export const STREAM_FROM = 256 * 1024

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

type Envelope = (Record<string, unknown> & { [ANSWER_BUDGET]?: number }) | null

/**
 * `{ data, meta, tier }` as the pieces of its text: the frame up to the list, each item that fits
 * the envelope's budget (after the first, with its comma), the rest of the frame. An envelope
 * without a list, or whose frame has no `"data":[]` (a schema of another shape), is one piece.
 */
export function* listPagePieces(payload: unknown, w: ListWriter): Generator<string> {
  const envelope = payload as Envelope
  const items = envelope?.data
  if (!Array.isArray(items)) return yield w.frame(payload)
  const frame = w.frame({ ...envelope, data: [] })
  const at = frame.indexOf(EMPTY_DATA)
  if (at < 0) return yield w.frame(payload)
  const budget = new ByteBudget(envelope?.[ANSWER_BUDGET] ?? w.budget)
  budget.take(Buffer.byteLength(frame))
  const open = at + EMPTY_DATA.length - 1
  yield frame.slice(0, open)
  const serialize = items.length ? w.itemSerializer(items) : undefined
  let written = 0
  for (const item of items) {
    const text = (serialize as Serialize)(item)
    // One byte for the comma. The first item goes in whatever its size, alone when it passes the budget.
    const fits = budget.take(Buffer.byteLength(text) + 1)
    if (!fits && written > 0) break
    yield written++ === 0 ? text : `,${text}`
    if (!fits) break
  }
  yield frame.slice(open)
}

/** The page as one text (a small page: its pieces joined). */
export function writeListPage(payload: unknown, w: ListWriter): string {
  return [...listPagePieces(payload, w)].join('')
}

/** Serializers that can write their page as pieces: the route's serializer → its pieces. */
const streamable = new WeakMap<Serialize, (payload: unknown) => Iterable<string>>()

/** The serializer of a list route, which can also write its page as a stream. */
export function listSerializer(w: ListWriter): Serialize {
  const serialize = (payload: unknown) => writeListPage(payload, w)
  streamable.set(serialize, (payload) => listPagePieces(payload, w))
  return serialize
}

/** Whether a page's items take at least STREAM_FROM bytes (a lower bound, counted until known). */
function large(items: unknown[]): boolean {
  let bytes = 0
  for (const item of items) {
    bytes += jsonBytesAtLeast(item)
    if (bytes >= STREAM_FROM) return true
  }
  return false
}

/**
 * Sends a large page of a list route as a paced stream and answers the reply; undefined when the
 * page is small (the route returns the envelope and Fastify writes it whole).
 */
export function streamLargePage(reply: FastifyReply, envelope: { data: unknown[] }): FastifyReply | undefined {
  if (!large(envelope.data)) return undefined
  const pieces = streamable.get(reply.getSerializationFunction('200') as Serialize)
  if (!pieces) return undefined
  return reply.type('application/json; charset=utf-8').send(pacedStream(pieces(envelope)))
}
