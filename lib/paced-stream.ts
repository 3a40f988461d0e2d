import { Readable } from 'node:stream'

/**
 * An answer written as a stream from pieces produced lazily (a generator doing its work as each
 * piece is asked for): pieces are gathered into chunks of about `chunk` bytes, the next piece is
 * asked for only when the reader wants more (memory holds a chunk or two, whatever the whole
 * answer's size), and the event loop is given back every `sliceMs` of work, so a large answer
 * never holds it while other requests (and DNS, which may share the process) wait.
 */
export interface PacedStreamOptions {
  /** Milliseconds of work before the event loop is given back (default 10). */
  sliceMs?: number
  /** Bytes gathered before a chunk is handed on (default 64 KiB). */
  chunk?: number
}

/** Resolves in the event loop's next turn, after the I/O waiting now. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Work measured in slices: `due()` says when the current one is spent, `pause()` gives the loop back and starts the next. */
export class Pacer {
  #started = performance.now()

  constructor(private readonly sliceMs = 10) {}

  due(): boolean {
    return performance.now() - this.#started > this.sliceMs
  }

  async pause(): Promise<void> {
    await nextTurn()
    this.#started = performance.now()
  }

  /** Gives the loop back when the slice is spent. */
  async step(): Promise<void> {
    if (this.due()) await this.pause()
  }
}

export function pacedStream(pieces: Iterable<string | Uint8Array>, opts: PacedStreamOptions = {}): Readable {
  const chunk = opts.chunk ?? 64 * 1024
  return Readable.from(pacedChunks(pieces, opts), { objectMode: false, highWaterMark: chunk })
}

/** The chunks of the stream, in order (for callers that consume them themselves). */
export async function* pacedChunks(pieces: Iterable<string | Uint8Array>, opts: PacedStreamOptions = {}): AsyncGenerator<Buffer> {
  const chunk = opts.chunk ?? 64 * 1024
  const pacer = new Pacer(opts.sliceMs)
  let pending: Buffer[] = []
  let size = 0
  // The request's checks ran in this turn: the work starts in the next one.
  await pacer.pause()
  for (const piece of pieces) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength)
    pending.push(bytes)
    size += bytes.length
    if (size >= chunk) {
      yield Buffer.concat(pending)
      pending = []
      size = 0
    }
    await pacer.step()
  }
  if (size > 0) yield Buffer.concat(pending)
}
