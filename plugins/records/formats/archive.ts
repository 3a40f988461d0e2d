import { gunzipSync, unzipSync, zipSync } from 'fflate'

/**
 * Reading and writing the archives Markdown notes travel in: zip (what
 * Obsidian, Bear and Joplin users hand around) and tar / tar.gz. Sizes are
 * checked before inflating, so a zip bomb is refused instead of filling memory.
 */
export const MAX_MEMBER_BYTES = 16 * 1024 * 1024
export const MAX_TOTAL_BYTES = 256 * 1024 * 1024

export interface ArchiveMember {
  name: string
  data: Uint8Array
}

export class ArchiveError extends Error {}

const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b
const isGzip = (b: Uint8Array) => b[0] === 0x1f && b[1] === 0x8b
const isTar = (b: Uint8Array) => b.length >= 512 && new TextDecoder().decode(b.subarray(257, 262)) === 'ustar'

/** Whether the bytes start like a zip, gzip or tar archive. */
export function isArchive(bytes: Uint8Array): boolean {
  return isZip(bytes) || isGzip(bytes) || isTar(bytes)
}

/** Members whose name passes `want`, in archive order; the kind is sniffed from the bytes. */
export function readArchive(bytes: Uint8Array, want: (name: string) => boolean): ArchiveMember[] {
  if (isZip(bytes)) return readZip(bytes, want)
  if (isGzip(bytes)) {
    let tar: Uint8Array
    try {
      tar = gunzipSync(bytes)
    } catch {
      throw new ArchiveError('the file is not a valid gzip archive')
    }
    return readTar(tar, want)
  }
  if (isTar(bytes)) return readTar(bytes, want)
  throw new ArchiveError('expected a zip, tar or tar.gz archive')
}

function readZip(bytes: Uint8Array, want: (name: string) => boolean): ArchiveMember[] {
  let total = 0
  let tooBig: string | null = null
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        if (!want(file.name)) return false
        total += file.originalSize
        if (file.originalSize > MAX_MEMBER_BYTES || total > MAX_TOTAL_BYTES) tooBig ??= file.name
        return tooBig === null
      },
    })
  } catch {
    throw new ArchiveError('the file is not a valid zip archive')
  }
  if (tooBig) throw new ArchiveError(`archive member ${tooBig} is too large (limit ${MAX_MEMBER_BYTES} bytes, ${MAX_TOTAL_BYTES} in all)`)
  return Object.entries(files).map(([name, data]) => ({ name, data }))
}

function readTar(bytes: Uint8Array, want: (name: string) => boolean): ArchiveMember[] {
  const members: ArchiveMember[] = []
  const text = new TextDecoder()
  let total = 0
  for (let offset = 0; offset + 512 <= bytes.length;) {
    const header = bytes.subarray(offset, offset + 512)
    if (header.every((b) => b === 0)) break
    const field = (start: number, length: number) => text.decode(header.subarray(start, start + length)).replace(/\0.*$/s, '')
    const size = Number.parseInt(field(124, 12).trim() || '0', 8)
    if (!Number.isFinite(size) || size < 0) throw new ArchiveError('the tar archive has a corrupt header')
    const prefix = field(345, 155)
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100)
    const type = field(156, 1) || '0'
    const start = offset + 512
    if (start + size > bytes.length) throw new ArchiveError(`tar member ${name} is truncated`)
    if ((type === '0' || type === '\0') && want(name)) {
      total += size
      if (size > MAX_MEMBER_BYTES || total > MAX_TOTAL_BYTES) throw new ArchiveError(`archive member ${name} is too large`)
      members.push({ name, data: bytes.subarray(start, start + size) })
    }
    offset = start + Math.ceil(size / 512) * 512
  }
  return members
}

export function writeZip(members: ArchiveMember[]): Uint8Array {
  return zipSync(Object.fromEntries(members.map((m) => [m.name, m.data])), { level: 6 })
}
