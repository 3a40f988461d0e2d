/**
 * The few parts of ustar (POSIX.1-1988) a backup needs: regular files with short names.
 * Written by hand so the archive streams without a dependency; `tar -tzf` reads it.
 */
const BLOCK = 512

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`
}

/** The 512-byte header of one regular file. */
export function tarHeader(name: string, size: number, mtimeS: number, mode = 0o600): Buffer {
  if (Buffer.byteLength(name) > 99) throw new Error(`tar entry name too long: ${name}`)
  const h = Buffer.alloc(BLOCK)
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

export const tarPadding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK)
/** Two zero blocks end an archive. */
export const tarEnd = () => Buffer.alloc(BLOCK * 2)

export interface TarEntryStart {
  name: string
  size: number
}

export interface TarSink {
  /** A file starts; throw to refuse it (an unexpected name, a size over the limit). */
  start(entry: TarEntryStart): void
  data(chunk: Buffer): void
  end(): void
}

function parseOctal(field: Buffer): number {
  const text = field.toString('ascii').replace(/\0.*$/s, '').trim()
  if (!/^[0-7]{1,12}$/.test(text)) throw new Error('damaged archive: bad number in a tar header')
  return parseInt(text, 8)
}

function checkHeader(h: Buffer): TarEntryStart {
  let sum = 0
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (h[i] as number)
  if (sum !== parseOctal(h.subarray(148, 156))) throw new Error('damaged archive: tar header checksum mismatch')
  const type = String.fromCharCode(h[156] as number)
  if (type !== '0' && type !== '\0') throw new Error('unexpected archive content: only regular files are allowed')
  const name = h.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '')
  return { name, size: parseOctal(h.subarray(124, 136)) }
}

/**
 * Reads a tar stream chunk by chunk (linear: each byte is looked at once) and hands
 * each file to the sink. Resolves when the end blocks arrive; a stream that stops
 * short is refused.
 */
export async function readTar(source: AsyncIterable<Buffer>, sink: TarSink): Promise<void> {
  let pending: Buffer = Buffer.alloc(0)
  let remaining = 0
  let pad = 0
  let inFile = false
  let ended = false
  for await (const chunk of source) {
    if (ended) continue
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
    let at = 0
    while (at < pending.length) {
      if (inFile) {
        const take = Math.min(remaining, pending.length - at)
        if (take) sink.data(pending.subarray(at, at + take))
        at += take
        remaining -= take
        if (remaining > 0) break
        inFile = false
        sink.end()
        continue
      }
      if (pad) {
        const skip = Math.min(pad, pending.length - at)
        at += skip
        pad -= skip
        if (pad) break
        continue
      }
      if (pending.length - at < BLOCK) break
      const header = pending.subarray(at, at + BLOCK)
      at += BLOCK
      if (header.every((b) => b === 0)) {
        ended = true
        break
      }
      const entry = checkHeader(header)
      sink.start(entry)
      remaining = entry.size
      pad = (BLOCK - (entry.size % BLOCK)) % BLOCK
      inFile = true
      if (remaining === 0) {
        inFile = false
        sink.end()
      }
    }
    pending = pending.subarray(at)
  }
  if (!ended) throw new Error('damaged archive: it ends in the middle (truncated file?)')
}
