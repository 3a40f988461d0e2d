import { ArchiveError, ArchiveTooLargeError, isArchive } from './archive.js'
import { parseICalendar } from './ics-parse.js'
import { icalendarChunks } from './ics-serialize.js'
import { isNoteFile, notesArchiveChunks, parseNoteFile, parseNotesArchive } from './markdown.js'
import type { ContactRecord, EventRecord, NoteRecord, ParseResult, TaskRecord } from './types.js'
import { parseTodos } from './vtodo-parse.js'
import { taskUid, todoChunks } from './vtodo-serialize.js'
import type { StoredProperty } from '../engine/properties.js'
import { parseVCards } from './vcard-parse.js'
import { type VCardVersion, vcardChunks } from './vcard-serialize.js'

/**
 * The file formats of each resource, as the import/export routes use them:
 * one export format (plus options) and one import reader per resource.
 * An export is written a piece at a time from records read in batches: the
 * route streams the pieces, so an export of any size holds one batch.
 */
export interface ExportFile {
  /** The file's pieces, each made when it is asked for. */
  body: Iterable<string | Uint8Array>
  contentType: string
  filename: string
}

/** The records an export writes. */
export interface ExportSource {
  /** Every record, oldest first, in batches; each call starts again from the first. */
  batches(): Iterable<unknown[]>
  /** What imports kept beyond Hearth's fields for these records (record id → lines), written back. */
  properties(ids: readonly string[]): ReadonlyMap<string, StoredProperty[]>
  /** One record by id (an event override's series), or undefined. */
  get(id: string): unknown
}

export interface Codec {
  /** What the file is, in words ('vCard'), and its media type, for the routes' documentation. */
  kind: string
  mediaType: string
  /** The `format` query values export accepts; the first is the default. */
  formats: readonly string[]
  write(source: ExportSource, options: { version?: VCardVersion; now: number }): ExportFile
  /** `zone`: the instance's IANA zone, for times a file writes without one. */
  read(bytes: Buffer, filename: string, options?: { zone?: string }): ParseResult<unknown>
}

export class FileFormatError extends Error {}

/** The file unpacks past the import limits. */
export class FileTooLargeError extends FileFormatError {}

/** UTF-8 text of an upload; a BOM is dropped, invalid bytes refuse the file. */
function text(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '')
  } catch {
    throw new FileFormatError('the file is not valid UTF-8 text')
  }
}

/** A reader that found no entry at all was handed the wrong kind of file. */
function requireEntries<T>(result: ParseResult<T>, expects: string): ParseResult<T> {
  if (result.entries.length === 0 && !result.failed.some((f) => f.index !== undefined)) {
    throw new FileFormatError(`the file contains no ${expects}`)
  }
  return result
}

export const codecs: Record<'notes' | 'contacts' | 'events' | 'tasks', Codec> = {
  notes: {
    kind: 'a zip of Markdown files',
    mediaType: 'application/zip',
    formats: ['markdown'],
    write: (source) => ({
      body: notesArchiveChunks(source.batches() as Iterable<NoteRecord[]>),
      contentType: 'application/zip',
      filename: 'hearth-notes.zip',
    }),
    read(bytes, filename) {
      // A single .md file is a one-note import; anything else must be an archive.
      if (!isArchive(bytes) && isNoteFile(filename)) {
        try {
          return { entries: [{ index: 0, file: filename, record: parseNoteFile(filename, text(bytes)) }], failed: [] }
        } catch (err) {
          // A broken front matter in the only file is the file's fault: 400, never a 500.
          if (err instanceof FileFormatError) throw err
          throw new FileFormatError(`${filename}: ${(err as Error).message}`)
        }
      }
      try {
        return requireEntries(parseNotesArchive(bytes), 'Markdown (.md) files')
      } catch (err) {
        if (err instanceof ArchiveTooLargeError) throw new FileTooLargeError(err.message)
        if (err instanceof ArchiveError) throw new FileFormatError(err.message)
        throw err
      }
    },
  },
  contacts: {
    kind: 'vCard',
    mediaType: 'text/vcard',
    formats: ['vcard'],
    write: (source, { version = '4.0' }) => ({
      body: vcardChunks(source.batches() as Iterable<ContactRecord[]>, version),
      contentType: 'text/vcard; charset=utf-8',
      filename: 'hearth-contacts.vcf',
    }),
    read: (bytes) => requireEntries(parseVCards(text(bytes)), 'vCard (BEGIN:VCARD)'),
  },
  events: {
    kind: 'iCalendar',
    mediaType: 'text/calendar',
    formats: ['ics'],
    write: (source, { now }) => ({
      body: icalendarChunks(
        {
          batches: () => source.batches() as Iterable<EventRecord[]>,
          properties: (ids) => source.properties(ids),
          series: (id) => source.get(id) as EventRecord | undefined,
        },
        now,
      ),
      contentType: 'text/calendar; charset=utf-8',
      filename: 'hearth-events.ics',
    }),
    read: (bytes, _filename, options) => requireEntries(parseICalendar(text(bytes), options), 'iCalendar event (BEGIN:VEVENT)'),
  },
  tasks: {
    kind: 'iCalendar (VTODO)',
    mediaType: 'text/calendar',
    formats: ['ics'],
    write: (source, { now }) => ({
      body: todoChunks(
        {
          batches: () => source.batches() as Iterable<TaskRecord[]>,
          properties: (ids) => source.properties(ids),
          uid: (id) => (source.get(id) ? taskUid(id, source.properties([id]).get(id) ?? []) : undefined),
        },
        now,
      ),
      contentType: 'text/calendar; charset=utf-8',
      filename: 'hearth-tasks.ics',
    }),
    read: (bytes, _filename, options) => requireEntries(parseTodos(text(bytes), options), 'iCalendar task (BEGIN:VTODO)'),
  },
}
