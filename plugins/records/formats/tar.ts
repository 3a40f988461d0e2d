import { ArchiveError, type ArchiveMember, ArchiveTooLargeError } from './archive.js'

const BLOCK = 512

/**
 * A tar reader fed in chunks of any size (the output of an inflater). It keeps only the wanted
 * members' bytes and raises ArchiveError as soon as a member passes `member` bytes or the archive
 * passes `total` bytes, so an archive is never inflated past its limits.
 */
export class TarReader {
  done = false
  private readonly members: ArchiveMember[] = []
  private readonly header = new Uint8Array(BLOCK)
  private headerFill = 0
  private current: { name: string; parts: Uint8Array[]; keep: boolean } | null = null
  /** Bytes of member data (then padding) still to come for the current member. */
  private dataLeft = 0
  private padLeft = 0
  private seen = 0
  private kept = 0

  constructor(
    private readonly want: (name: string) => boolean,
    private readonly limit: { member: number; total: number },
  ) {}

  push(chunk: Uint8Array): void {
    this.seen += chunk.length
    if (this.seen > this.limit.total + 2 * BLOCK * 10)
      throw new ArchiveTooLargeError(`the archive is larger than ${this.limit.total} bytes unpacked`)
    let i = 0
    while (i < chunk.length && !this.done) {
      if (this.dataLeft > 0) {
        const n = Math.min(this.dataLeft, chunk.length - i)
        if (this.current?.keep) this.current.parts.push(chunk.slice(i, i + n))
        this.dataLeft -= n
        i += n
        if (this.dataLeft === 0) this.endMember()
      } else if (this.padLeft > 0) {
        const n = Math.min(this.padLeft, chunk.length - i)
        this.padLeft -= n
        i += n
      } else {
        const n = Math.min(BLOCK - this.headerFill, chunk.length - i)
        this.header.set(chunk.subarray(i, i + n), this.headerFill)
        this.headerFill += n
        i += n
        if (this.headerFill === BLOCK) this.startMember()
      }
    }
  }

  /** The members read; throws when the archive ended inside a member. */
  finish(): ArchiveMember[] {
    if (this.dataLeft > 0 || this.current) throw new ArchiveError(`tar member ${this.current?.name ?? ''} is truncated`)
    return this.members
  }

  private startMember(): void {
    this.headerFill = 0
    const header = this.header
    if (header.every((b) => b === 0)) {
      this.done = true
      return
    }
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8)
    if (!Number.isFinite(size) || size < 0) throw new ArchiveError('the tar archive has a corrupt header')
    const prefix = field(header, 345, 155)
    const name = prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100)
    const type = field(header, 156, 1) || '0'
    const keep = (type === '0' || type === '\0') && this.want(name)
    if (keep && size > this.limit.member)
      throw new ArchiveTooLargeError(`archive member ${name} is too large (limit ${this.limit.member} bytes)`)
    this.current = { name, parts: [], keep }
    this.dataLeft = size
    this.padLeft = (BLOCK - (size % BLOCK)) % BLOCK
    if (size === 0) this.endMember()
  }

  private endMember(): void {
    const member = this.current
    this.current = null
    if (!member?.keep) return
    this.kept += member.parts.reduce((sum, p) => sum + p.length, 0)
    if (this.kept > this.limit.total) throw new ArchiveTooLargeError(`the archive's notes are larger than ${this.limit.total} bytes in all`)
    this.members.push({ name: member.name, data: Buffer.concat(member.parts) })
  }
}

const text = new TextDecoder()

/** A NUL-terminated header field. */
function field(header: Uint8Array, start: number, length: number): string {
  const bytes = header.subarray(start, start + length)
  const nul = bytes.indexOf(0)
  return text.decode(nul < 0 ? bytes : bytes.subarray(0, nul))
}
