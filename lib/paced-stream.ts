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

/**
 * The turn paced work resumes in, shared by every pacer: all that paused wait for the same
 * setImmediate, and the slice is counted from when it fired. Many answers paced at once then hold
 * the loop for about one slice a turn between them (the first to resume does a slice, the others a
 * piece each), not a slice each: twelve streams were twelve slices between two reads of the sockets.
 */
let resumed: Promise<void> | undefined
let turnStarted = 0
function sharedTurn(): Promise<void> {
  resumed ??= new Promise((resolve) =>
    setImmediate(() => {
      resumed = undefined
      turnStarted = performance.now()
      resolve()
    }),
  )
  return resumed
}

/**
 * Work measured in slices: `due()` says when the current one is spent, `pause()` gives the loop
 * back until the next turn. The first slice (the turn the work began in) is the pacer's own; after
 * a pause, the slice is the turn's, shared with the other paced work resumed in it.
 */
export class Pacer {
  #started = performance.now()
  #shared = false

  constructor(private readonly sliceMs = 10) {}

  due(): boolean {
    return performance.now() - (this.#shared ? turnStarted : this.#started) > this.sliceMs
  }

  async pause(): Promise<void> {
    await sharedTurn()
    this.#shared = true
  }

  /** Gives the loop back when the slice is spent. */
  async step(): Promise<void> {
    if (this.due()) await this.pause()
  }
}

/**
 * Work written as steps: a generator that yields (nothing) where it may pause and returns its
 * result. `runSteps` does it all in this turn; `pacedSteps` gives the event loop back between
 * steps whenever a slice of work is spent, so the same code serves a caller that must answer now
 * and one that shares the loop with others.
 */
export type Steps<T> = Generator<void, T, void>

export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next()
    if (next.done) return next.value
  }
}

export async function pacedSteps<T>(steps: Steps<T>, pacer = new Pacer()): Promise<T> {
  for (;;) {
    const next = steps.next()
    if (next.done) return next.value
    await pacer.step()
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
