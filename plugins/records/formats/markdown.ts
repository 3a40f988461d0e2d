import { type ArchiveMember, readArchive, writeZip, zipStream } from './archive.js'
import { parseYaml, stringifyYaml } from './front-matter.js'
import type { NoteRecord, ParseResult } from './types.js'

/**
 * Notes ⇄ Markdown files with YAML front matter, one file per note, in a
 * zip. Front matter keys Hearth knows fill the note's fields; any other key
 * (Obsidian's aliases, Jekyll's layout...) is kept in custom_fields. A file
 * without a title key takes its file name as title.
 */
const FORMATS = new Set(['markdown', 'html', 'plain'])
const KNOWN = new Set(['title', 'tags', 'pinned', 'archived', 'content_format', 'custom_fields', 'created_at', 'updated_at', 'source'])
const NOTE_FILE = /\.(md|markdown|txt)$/i

/** Note files only: hidden files and folders (.obsidian, .trash) and macOS resource forks are skipped. */
export function isNoteFile(name: string): boolean {
  const segments = name.split('/')
  return NOTE_FILE.test(name) && !segments.some((s) => s.startsWith('.') || s === '__MACOSX')
}

export function parseNotesArchive(bytes: Uint8Array): ParseResult<NoteRecord> {
  const result: ParseResult<NoteRecord> = { entries: [], failed: [] }
  readArchive(bytes, isNoteFile).forEach((member, index) => {
    try {
      result.entries.push({
        index,
        file: member.name,
        record: parseNoteFile(member.name, new TextDecoder('utf-8', { fatal: true }).decode(member.data)),
      })
    } catch (err) {
      const message = err instanceof TypeError ? 'the file is not valid UTF-8' : (err as Error).message
      result.failed.push({ index, file: member.name, error: message })
    }
  })
  return result
}

export function parseNoteFile(name: string, text: string): NoteRecord {
  const body = text.replace(/^\uFEFF/, '')
  const fm = splitFrontMatter(body)
  const meta = fm ? parseYaml(fm.yaml, 2) : {}
  const content = fm ? fm.content : body
  const fileTitle = (name.split('/').pop() ?? '').replace(NOTE_FILE, '')
  const format = meta.content_format ?? (/\.txt$/i.test(name) ? 'plain' : 'markdown')
  if (typeof format !== 'string' || !FORMATS.has(format)) throw new Error('content_format must be markdown, html or plain')
  const note: NoteRecord = {
    title: 'title' in meta ? optionalString(meta.title, 'title') : fileTitle || null,
    content,
    content_format: format as NoteRecord['content_format'],
    tags: tagsOf(meta.tags),
    pinned: bool(meta.pinned, 'pinned'),
    archived: bool(meta.archived, 'archived'),
    custom_fields: customOf(meta),
  }
  for (const key of ['created_at', 'updated_at'] as const) {
    if (meta[key] === undefined || meta[key] === null) continue
    const at = new Date(String(meta[key]))
    if (Number.isNaN(at.getTime())) throw new Error(`${key} is not a date`)
    note[key] = at.toISOString()
  }
  if (typeof meta.source === 'string' && meta.source) note.source = meta.source
  return note
}

/** `---` on the first line opens front matter; the next `---` or `...` line closes it. */
function splitFrontMatter(body: string): { yaml: string; content: string } | null {
  const open = /^---[ \t]*\r?\n/.exec(body)
  if (!open) return null
  const close = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/gm
  close.lastIndex = open[0].length
  const end = close.exec(body)
  if (!end) return null
  return { yaml: body.slice(open[0].length, end.index), content: body.slice(end.index + end[0].length) }
}

function optionalString(value: unknown, key: string): string | null {
  if (value === null || value === undefined) return null
  if (typeof value === 'object') throw new Error(`${key} must be a string`)
  return String(value)
}

function bool(value: unknown, key: string): boolean {
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') throw new Error(`${key} must be true or false`)
  return value
}

/** A list, or Obsidian's comma/space separated string form. */
function tagsOf(value: unknown): string[] {
  if (value === undefined || value === null) return []
  const list = Array.isArray(value) ? value : String(value).split(/[,\s]+/)
  return [...new Set(list.filter((t) => t !== null && t !== '').map((t) => String(t).replace(/^#/, '')))]
}

function customOf(meta: Record<string, unknown>): NoteRecord['custom_fields'] {
  const declared = meta.custom_fields
  if (declared !== undefined && declared !== null && (typeof declared !== 'object' || Array.isArray(declared))) {
    throw new Error('custom_fields must be a mapping')
  }
  const extra = Object.fromEntries(Object.entries(meta).filter(([key]) => !KNOWN.has(key)))
  const merged = { ...extra, ...((declared as Record<string, unknown> | null | undefined) ?? {}) }
  return Object.keys(merged).length > 0 ? merged : null
}

type ExportedNote = NoteRecord & { id?: string }

export function serializeNote(note: ExportedNote): string {
  const meta: Record<string, unknown> = {
    title: note.title,
    tags: note.tags,
    pinned: note.pinned,
    archived: note.archived,
    content_format: note.content_format,
    custom_fields: note.custom_fields,
  }
  if (note.created_at) meta.created_at = note.created_at
  if (note.updated_at) meta.updated_at = note.updated_at
  if (note.source) meta.source = note.source
  return `---\n${stringifyYaml(meta)}\n---\n${note.content}`
}

/** One zip, one `<title>.md` per note; names are made safe and unique. */
export function serializeNotesArchive(notes: ExportedNote[]): Uint8Array {
  return writeZip([...noteFiles([notes])])
}

/** The same zip a piece at a time, each note read and deflated when it is asked for (an export holds one batch). */
export function notesArchiveChunks(batches: Iterable<ExportedNote[]>): Generator<Uint8Array> {
  return zipStream(noteFiles(batches))
}

/** A file per note; the names used so far are kept (one short string a note) to keep each unique. */
function* noteFiles(batches: Iterable<ExportedNote[]>): Generator<ArchiveMember> {
  const used = new Set<string>()
  // Where each base's numbering got to: a thousand notes of one title take a step each, not a scan from (2).
  const numbered = new Map<string, number>()
  for (const batch of batches) {
    for (const note of batch) {
      const base = fileBase(note.title) || note.id || 'note'
      let name = `${base}.md`
      let n = numbered.get(base.toLowerCase()) ?? 2
      for (; used.has(name.toLowerCase()); n++) name = `${base} (${n}).md`
      if (name !== `${base}.md`) numbered.set(base.toLowerCase(), n)
      used.add(name.toLowerCase())
      yield { name, data: new TextEncoder().encode(serializeNote(note)) }
    }
  }
}

function fileBase(title: string | null): string {
  return (title ?? '')
    .replace(/[\u0000-\u001f/\\:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .slice(0, 80)
    .trim()
}
