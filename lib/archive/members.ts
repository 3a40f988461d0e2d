import { Gunzip, unzipSync, zipSync } from 'fflate'
import { TAR_BLOCK, TarError, TarParser } from './tar.js'

/**
 * Archives read whole into members: zip, tar and tar.gz, the kind sniffed from the bytes.
 * Sizes are checked while inflating, so a zip or gzip bomb is refused at its first byte over
 * a limit instead of filling memory.
 */
export interface ArchiveMember {
  name: string
  data: Uint8Array
}

export interface ArchiveLimits {
  /** Bytes one wanted member may hold unpacked. */
  member: number
  /** Bytes the wanted members may hold unpacked in all. */
  total: number
}

export class ArchiveError extends Error {}

/** An archive over its limits. */
export class ArchiveTooLargeError extends ArchiveError {}

const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b
const isGzip = (b: Uint8Array) => b[0] === 0x1f && b[1] === 0x8b
const isTar = (b: Uint8Array) => b.length >= TAR_BLOCK && new TextDecoder().decode(b.subarray(257, 262)) === 'ustar'

/** Whether the bytes start like a zip, gzip or tar archive. */
export function isArchive(bytes: Uint8Array): boolean {
  return isZip(bytes) || isGzip(bytes) || isTar(bytes)
}

/** Members whose name passes `want`, in archive order. */
export function readArchive(bytes: Uint8Array, want: (name: string) => boolean, limits: ArchiveLimits): ArchiveMember[] {
  if (isZip(bytes)) return readZip(bytes, want, limits)
  if (isGzip(bytes)) return readTarGz(bytes, want, limits)
  if (isTar(bytes)) return readTar(bytes, want, limits)
  throw new ArchiveError('expected a zip, tar or tar.gz archive')
}

export function writeZip(members: ArchiveMember[]): Uint8Array {
  return zipSync(Object.fromEntries(members.map((m) => [m.name, m.data])), { level: 6 })
}

function readZip(bytes: Uint8Array, want: (name: string) => boolean, limits: ArchiveLimits): ArchiveMember[] {
  let total = 0
  let tooBig: string | null = null
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        // fflate returns members as an object's keys: '__proto__' would set its prototype, not a member.
        if (file.name === '__proto__' || !want(file.name)) return false
        total += file.originalSize
        if (file.originalSize > limits.member || total > limits.total) tooBig ??= file.name
        return tooBig === null
      },
    })
  } catch {
    throw new ArchiveError('the file is not a valid zip archive')
  }
  if (tooBig) throw new ArchiveTooLargeError(`archive member ${tooBig} is too large (limit ${limits.member} bytes, ${limits.total} in all)`)
  return Object.entries(files).map(([name, data]) => ({ name, data }))
}

/** Input fed to the inflater at a time: deflate expands at most ~1032×, so one step yields about 4 MiB at most. */
const GZIP_STEP = 4096

function readTarGz(bytes: Uint8Array, want: (name: string) => boolean, limits: ArchiveLimits): ArchiveMember[] {
  const tar = new MemberCollector(want, limits)
  const gunzip = new Gunzip((chunk) => tar.push(chunk))
  try {
    for (let offset = 0; offset < bytes.length && !tar.done; offset += GZIP_STEP) {
      gunzip.push(bytes.subarray(offset, offset + GZIP_STEP), offset + GZIP_STEP >= bytes.length)
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err
    if (err instanceof TarError) throw new ArchiveError(err.message)
    throw new ArchiveError('the file is not a valid gzip archive')
  }
  return tar.finish()
}

function readTar(bytes: Uint8Array, want: (name: string) => boolean, limits: ArchiveLimits): ArchiveMember[] {
  const tar = new MemberCollector(want, limits)
  try {
    tar.push(bytes)
  } catch (err) {
    throw err instanceof TarError ? new ArchiveError(err.message) : err
  }
  return tar.finish()
}

/** Keeps the wanted regular files' bytes, refusing the archive as soon as a limit is passed. */
class MemberCollector {
  readonly #parser: TarParser
  readonly #members: ArchiveMember[] = []
  #current: { name: string; parts: Uint8Array[]; keep: boolean } | null = null
  #seen = 0
  #kept = 0

  constructor(
    private readonly want: (name: string) => boolean,
    private readonly limits: ArchiveLimits,
  ) {
    this.#parser = new TarParser({
      start: (entry) => {
        const keep = entry.type === '0' && this.want(entry.name)
        if (keep && entry.size > this.limits.member)
          throw new ArchiveTooLargeError(`archive member ${entry.name} is too large (limit ${this.limits.member} bytes)`)
        this.#current = { name: entry.name, parts: [], keep }
      },
      data: (chunk) => {
        if (this.#current?.keep) this.#current.parts.push(chunk.slice())
      },
      end: () => this.#endMember(),
    })
  }

  get done(): boolean {
    return this.#parser.done
  }

  push(chunk: Uint8Array): void {
    // Skipped members are inflated too: the whole stream is bounded, not only what is kept.
    this.#seen += chunk.length
    if (this.#seen > this.limits.total + 2 * TAR_BLOCK * 10)
      throw new ArchiveTooLargeError(`the archive is larger than ${this.limits.total} bytes unpacked`)
    this.#parser.push(chunk)
  }

  finish(): ArchiveMember[] {
    if (this.#current) throw new ArchiveError(`tar member ${this.#current.name} is truncated`)
    return this.#members
  }

  #endMember(): void {
    const member = this.#current
    this.#current = null
    if (!member?.keep) return
    this.#kept += member.parts.reduce((sum, p) => sum + p.length, 0)
    if (this.#kept > this.limits.total)
      throw new ArchiveTooLargeError(`the archive's members are larger than ${this.limits.total} bytes in all`)
    this.#members.push({ name: member.name, data: Buffer.concat(member.parts) })
  }
}
