import { Readable } from 'node:stream'
import type { ByteBudget } from '../byte-budget.js'
import { Pacer } from '../paced-stream.js'
import { MULTISTATUS_CLOSE, MULTISTATUS_OPEN, truncatedResponse } from './write.js'

/**
 * A multistatus answer written as a stream, one response at a time, within a byte budget: each
 * response is produced only when the one before it was written (the caller's iterable does its
 * work lazily), the answer stops at the first response that would pass the budget and ends with
 * the 507 response that says so, and the event loop is given back between slices of work so one
 * large answer never holds it (other requests and DNS share it).
 */
export interface MultistatusStreamOptions {
  /** The <response> elements, produced lazily (a generator). */
  responses: Iterable<string>
  /** Written after the responses (a sync-token), asked for once they are written or cut. */
  tail?: () => string
  /** The href of the 507 response that ends a cut answer: the request's collection. */
  cutAt: string
  /** The caller dropped responses (a count bound): the answer ends with the 507 response. Asked once the responses are written. */
  alreadyCut?: boolean | (() => boolean)
  budget: ByteBudget
  /** Milliseconds of work before the event loop is given back. */
  sliceMs?: number
}

/** Room kept for what closes the answer: the tail (a sync-token is ~60 bytes). */
const TAIL_RESERVE = 512
/** Responses are sent in chunks of about this many characters. */
const CHUNK = 64 * 1024

export function multistatusStream(opts: MultistatusStreamOptions): Readable {
  return Readable.from(chunks(opts), { objectMode: false, highWaterMark: CHUNK })
}

/** The chunks of the answer, in order; exported for callers that collect it themselves (tests, small answers). */
export async function* chunks(opts: MultistatusStreamOptions): AsyncGenerator<string> {
  const { budget, sliceMs = 10 } = opts
  const bytes = (s: string) => Buffer.byteLength(s)
  const cut = truncatedResponse(opts.cutAt)
  const reserve = bytes(cut) + bytes(MULTISTATUS_CLOSE) + TAIL_RESERVE
  budget.take(bytes(MULTISTATUS_OPEN))
  let pending = MULTISTATUS_OPEN
  let cutShort = false
  // The request's parsing and checks ran in this turn: the responses start in the next one.
  const pacer = new Pacer(sliceMs)
  await pacer.pause()
  for (const piece of opts.responses) {
    const size = bytes(piece)
    if (!budget.fits(size + reserve)) {
      cutShort = true
      break
    }
    budget.take(size)
    pending += piece
    if (pending.length >= CHUNK) {
      yield pending
      pending = ''
    }
    if (pacer.due()) {
      if (pending) yield pending
      pending = ''
      await pacer.pause()
    }
  }
  if (!cutShort) cutShort = typeof opts.alreadyCut === 'function' ? opts.alreadyCut() : opts.alreadyCut === true
  const tail = `${cutShort ? cut : ''}${opts.tail?.() ?? ''}${MULTISTATUS_CLOSE}`
  budget.take(bytes(tail))
  yield pending + tail
}

/** The whole answer as one string (tests; answers small by construction). */
export async function collectMultistatus(opts: MultistatusStreamOptions): Promise<string> {
  let out = ''
  for await (const chunk of chunks(opts)) out += chunk
  return out
}
