import { ArchiveError, readArchive } from '../../lib/archive/members.js'
import { ARCHIVE_IMPORT_LIMITS } from '../records/public.js'
import type { RemotePart } from './record-sink.js'

/**
 * Google Keep notes from a Google Takeout archive (zip or tgz): every
 * `Takeout/Keep/<name>.json` member, in the JSON shape Keep exports
 * (title, textContent, listContent [{ text, isChecked }], labels [{ name }],
 * isPinned, isArchived, isTrashed, createdTimestampUsec, userEditedTimestampUsec).
 * A checklist becomes Markdown task items; labels become tags.
 */
export interface KeepNote {
  /** The member's path below the Keep folder: the remote object's identity across uploads. */
  href: string
  /** userEditedTimestampUsec: unchanged notes are skipped on a re-upload. */
  etag: string | null
  trashed: boolean
  part: RemotePart
}

export class KeepArchiveError extends Error {}

const isKeepJson = (name: string) => /(?:^|\/)Keep\/[^/]+\.json$/i.test(name)

const str = (v: unknown) => (typeof v === 'string' ? v : '')
const usecToIso = (v: unknown): string | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,20}$/.test(v) ? Number(v) : NaN
  if (!Number.isFinite(n) || n <= 0) return undefined
  const d = new Date(Math.floor(n / 1000))
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}

export function readKeepArchive(bytes: Uint8Array): { notes: KeepNote[]; failed: Array<{ file: string; error: string }> } {
  let members
  try {
    members = readArchive(bytes, isKeepJson, ARCHIVE_IMPORT_LIMITS)
  } catch (err) {
    throw new KeepArchiveError(err instanceof ArchiveError ? err.message : 'the upload is not a Takeout archive')
  }
  if (members.length === 0) throw new KeepArchiveError('the archive holds no Keep/*.json note (a Google Takeout export of Keep)')
  const notes: KeepNote[] = []
  const failed: Array<{ file: string; error: string }> = []
  for (const member of members) {
    const href = member.name.slice(member.name.toLowerCase().lastIndexOf('keep/'))
    try {
      notes.push(keepNote(href, JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(member.data)) as unknown))
    } catch (err) {
      failed.push({ file: member.name, error: (err as Error).message })
    }
  }
  return { notes, failed }
}

function keepNote(href: string, json: unknown): KeepNote {
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error('not a Keep note (a JSON object)')
  const n = json as Record<string, unknown>
  const list = Array.isArray(n.listContent) ? (n.listContent as Array<Record<string, unknown>>) : null
  const body = list
    ? list.map((item) => `- [${item.isChecked === true ? 'x' : ' '}] ${str(item.text).replace(/\r?\n/g, ' ')}`).join('\n')
    : str(n.textContent)
  const title = str(n.title).trim()
  const labels = Array.isArray(n.labels) ? (n.labels as Array<Record<string, unknown>>).map((l) => str(l.name).trim()).filter(Boolean) : []
  const edited = usecToIso(n.userEditedTimestampUsec)
  const created = usecToIso(n.createdTimestampUsec) ?? edited
  const record: Record<string, unknown> = {
    title: title || null,
    // A note needs content: a title-only Keep note keeps its title as the body.
    content: body || title,
    content_format: 'markdown',
    tags: [...new Set(labels)],
    pinned: n.isPinned === true,
    archived: n.isArchived === true,
    ...(created ? { created_at: created } : {}),
    ...(edited ? { updated_at: edited } : {}),
  }
  const etag = n.userEditedTimestampUsec !== undefined ? String(n.userEditedTimestampUsec) : null
  return { href, etag, trashed: n.isTrashed === true, part: { part: '', record } }
}
