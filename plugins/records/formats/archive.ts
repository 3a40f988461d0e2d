import { type ArchiveMember, readArchive as readAnyArchive } from '../../../lib/archive/members.js'

/**
 * The archives Markdown notes travel in: zip (what Obsidian, Bear and Joplin users hand around)
 * and tar / tar.gz, within the import limits docs/api.md gives (16 MiB a member, 256 MiB in all,
 * unpacked). The reading itself is lib/archive's.
 */
export const ARCHIVE_IMPORT_LIMITS = { member: 16 * 1024 * 1024, total: 256 * 1024 * 1024 }

export { ArchiveError, ArchiveTooLargeError, isArchive, writeZip, type ArchiveMember } from '../../../lib/archive/members.js'
export { zipStream } from '../../../lib/archive/zip-stream.js'

/** Members whose name passes `want`, in archive order; the kind is sniffed from the bytes. */
export function readArchive(bytes: Uint8Array, want: (name: string) => boolean): ArchiveMember[] {
  return readAnyArchive(bytes, want, ARCHIVE_IMPORT_LIMITS)
}
