/**
 * The parts of ustar (POSIX.1-1988) Hearth reads and writes: regular files, with the
 * `prefix` field for long names. The reader is fed chunks of any size (a file stream, an
 * inflater's output) and looks at each byte once; the writer streams without a dependency,
 * and `tar -tzf` reads what it writes.
 */
export const TAR_BLOCK = 512

export class TarError extends Error {}

export interface TarEntry {
  name: string
  size: number
  /** The typeflag: '0' for a regular file (an old '\0' is reported as '0'). */
  type: string
}

export interface TarSink {
  /** An entry starts; throw to refuse it (an unexpected name or type, a size over a limit). */
  start(entry: TarEntry): void
  data(chunk: Uint8Array): void
  end(): void
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`
}

/** The 512-byte header of one regular file. */
export function tarHeader(name: string, size: number, mtimeS: number, mode = 0o600): Buffer {
  if (Buffer.byteLength(name) > 99) throw new TarError(`tar entry name too long: ${name}`)
  const h = Buffer.alloc(TAR_BLOCK)
  h.write(name, 0, 100, 'utf8')
  h.write(octal(mode, 8), 100, 'ascii')
  h.write(octal(0, 8), 108, 'ascii')
  h.write(octal(0, 8), 116, 'ascii')
  h.write(octal(size, 12), 124, 'ascii')
  h.write(octal(Math.floor(mtimeS), 12), 136, 'ascii')
  h.write('        ', 148, 'ascii')
  h.write('0', 156, 'ascii')
  h.write('ustar\0', 257, 'ascii')
  h.write('00', 263, 'ascii')
  let sum = 0
  for (const byte of h) sum += byte
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii')
  return h
}

export const tarPadding = (size: number) => Buffer.alloc((TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK)
/** Two zero blocks end an archive. */
export const tarEnd = () => Buffer.alloc(TAR_BLOCK * 2)

const text = new TextDecoder()

/** A NUL-terminated header field. */
function field(header: Uint8Array, start: number, length: number): string {
  const bytes = header.subarray(start, start + length)
  const nul = bytes.indexOf(0)
  return text.decode(nul < 0 ? bytes : bytes.subarray(0, nul))
}

function number(header: Uint8Array, start: number, length: number): number {
  const value = field(header, start, length).trim()
  if (!/^[0-7]{1,12}$/.test(value)) throw new TarError('damaged archive: bad number in a tar header')
  return Number.parseInt(value, 8)
}

function readHeader(header: Uint8Array): TarEntry {
  let sum = 0
  for (let i = 0; i < TAR_BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] as number)
  if (sum !== number(header, 148, 8)) throw new TarError('damaged archive: tar header checksum mismatch')
  const prefix = field(header, 345, 155)
  const base = field(header, 0, 100)
  const type = field(header, 156, 1) || '0'
  return { name: prefix ? `${prefix}/${base}` : base, size: number(header, 124, 12), type }
}

/** A streaming tar reader: push chunks, each entry goes to the sink; `finish` checks the end. */
export class TarParser {
  /** The end-of-archive blocks were read; later bytes are ignored. */
  done = false
  readonly #header = new Uint8Array(TAR_BLOCK)
  #headerFill = 0
  #dataLeft = 0
  #padLeft = 0

  constructor(private readonly sink: TarSink) {}

  push(chunk: Uint8Array): void {
    let i = 0
    while (i < chunk.length && !this.done) {
      if (this.#dataLeft > 0) {
        const n = Math.min(this.#dataLeft, chunk.length - i)
        this.sink.data(chunk.subarray(i, i + n))
        this.#dataLeft -= n
        i += n
        if (this.#dataLeft === 0) this.#endEntry()
      } else if (this.#padLeft > 0) {
        const n = Math.min(this.#padLeft, chunk.length - i)
        this.#padLeft -= n
        i += n
      } else {
        const n = Math.min(TAR_BLOCK - this.#headerFill, chunk.length - i)
        this.#header.set(chunk.subarray(i, i + n), this.#headerFill)
        this.#headerFill += n
        i += n
        if (this.#headerFill === TAR_BLOCK) this.#startEntry()
      }
    }
  }

  /** Throws when the archive stopped short of its end blocks (a truncated file). */
  finish(): void {
    if (!this.done) throw new TarError('damaged archive: it ends in the middle (truncated file?)')
  }

  #startEntry(): void {
    this.#headerFill = 0
    if (this.#header.every((b) => b === 0)) {
      this.done = true
      return
    }
    const entry = readHeader(this.#header)
    this.sink.start(entry)
    this.#dataLeft = entry.size
    this.#padLeft = (TAR_BLOCK - (entry.size % TAR_BLOCK)) % TAR_BLOCK
    if (entry.size === 0) this.#endEntry()
  }

  #endEntry(): void {
    this.sink.end()
  }
}

/** Reads a whole tar stream into the sink; a stream that stops short is refused. */
export async function readTarStream(source: AsyncIterable<Uint8Array>, sink: TarSink): Promise<void> {
  const parser = new TarParser(sink)
  for await (const chunk of source) if (!parser.done) parser.push(chunk)
  parser.finish()
}
