import { Gunzip, unzipSync, zipSync } from 'fflate'
import { TarReader } from './tar.js'

/**
 * Reading and writing the archives Markdown notes travel in: zip (what
 * Obsidian, Bear and Joplin users hand around) and tar / tar.gz. Sizes are
 * checked while inflating, so a zip or gzip bomb is refused instead of filling memory.
 */
export const MAX_MEMBER_BYTES = 16 * 1024 * 1024
export const MAX_TOTAL_BYTES = 256 * 1024 * 1024

export interface ArchiveMember {
  name: string
  data: Uint8Array
}

export class ArchiveError extends Error {}

/** An archive over the limits of decisions.md (16 MiB a member, 256 MiB in all, unpacked). */
export class ArchiveTooLargeError extends ArchiveError {}

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
  if (isGzip(bytes)) return readTarGz(bytes, want)
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
        // fflate returns members as an object's keys: '__proto__' would set its prototype, not a member.
        if (file.name === '__proto__' || !want(file.name)) return false
        total += file.originalSize
        if (file.originalSize > MAX_MEMBER_BYTES || total > MAX_TOTAL_BYTES) tooBig ??= file.name
        return tooBig === null
      },
    })
  } catch {
    throw new ArchiveError('the file is not a valid zip archive')
  }
  if (tooBig)
    throw new ArchiveTooLargeError(`archive member ${tooBig} is too large (limit ${MAX_MEMBER_BYTES} bytes, ${MAX_TOTAL_BYTES} in all)`)
  return Object.entries(files).map(([name, data]) => ({ name, data }))
}

/** Input fed to the inflater at a time: deflate expands at most ~1032×, so one step yields about 4 MiB at most. */
const GZIP_STEP = 4096

/** Inflates step by step into the tar reader, which stops at the archive's end or at the first limit passed. */
function readTarGz(bytes: Uint8Array, want: (name: string) => boolean): ArchiveMember[] {
  const tar = new TarReader(want, limits())
  const gunzip = new Gunzip((chunk) => tar.push(chunk))
  try {
    for (let offset = 0; offset < bytes.length && !tar.done; offset += GZIP_STEP) {
      gunzip.push(bytes.subarray(offset, offset + GZIP_STEP), offset + GZIP_STEP >= bytes.length)
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err
    throw new ArchiveError('the file is not a valid gzip archive')
  }
  return tar.finish()
}

function readTar(bytes: Uint8Array, want: (name: string) => boolean): ArchiveMember[] {
  const tar = new TarReader(want, limits())
  tar.push(bytes)
  return tar.finish()
}

function limits() {
  return { member: MAX_MEMBER_BYTES, total: MAX_TOTAL_BYTES }
}

export function writeZip(members: ArchiveMember[]): Uint8Array {
  return zipSync(Object.fromEntries(members.map((m) => [m.name, m.data])), { level: 6 })
}
