import { Type } from '@sinclair/typebox'
import { Nullable, StringEnum, Timestamp, Uuid } from '../../../core/plugin-api.js'
import { createSchema, NullableText, patchSchema, recordSchema, Tags } from '../engine/schema-kit.js'
import type { ResourceDefinition } from '../engine/types.js'
import { firstCodePoints } from '../../../lib/text-prefix.js'
import { examples } from './examples.js'

/** Notes (api.md, Note): markdown, html or plain text, with tags, pin and archive. */

const TITLE_MAX = 80

const fields = {
  title: NullableText(500),
  content: Type.String({ maxLength: 1_000_000 }),
  content_format: StringEnum(['markdown', 'html', 'plain'] as const),
  tags: Tags,
  pinned: Type.Boolean(),
}

/** docs/api.md: the first non-empty line, markdown heading marks removed, at most 80 characters. */
export function titleFromContent(content: string): string | null {
  for (const raw of content.split('\n')) {
    const line = withoutClosingHashes(raw.replace(/^\s{0,3}#{1,6}(\s+|$)/, '')).trim()
    if (line) return Array.from(line).slice(0, TITLE_MAX).join('').trimEnd()
  }
  return null
}

/**
 * A heading's optional closing sequence (`## Title ##`): trailing hashes preceded by white space.
 * Written as a scan: the regex /\s+#+\s*$/ backtracks quadratically on long runs of spaces.
 */
function withoutClosingHashes(line: string): string {
  const text = line.trimEnd()
  let start = text.length
  while (start > 0 && text[start - 1] === '#') start--
  if (start === text.length || start === 0 || !/\s/.test(text[start - 1])) return text
  return text.slice(0, start)
}

export const notes: ResourceDefinition = {
  name: 'notes',
  singular: 'note',
  columns: {
    title: 'text',
    content: 'text',
    content_format: 'text',
    tags: 'json',
    pinned: 'bool',
    archived: 'bool',
    custom_fields: 'json',
  },
  sharing: { kind: 'note', column: 'id' },
  fts: { table: 'notes_fts', weights: [10, 1] },
  schemas: {
    record: recordSchema({ ...fields, title: Nullable(Type.String()), archived: Type.Boolean() }, examples.notes.record),
    create: createSchema(fields, ['content'], examples.notes.create),
    patch: patchSchema({ ...fields, archived: Type.Boolean() }),
    listFilters: Type.Object({
      tag: Type.Array(Type.String({ minLength: 1 }), { maxItems: 20, description: 'exact tag; repeatable, combined with AND' }),
      pinned: Type.Boolean(),
      archived: Type.Boolean({ description: 'when absent, archived notes are left out (except in the trash view)' }),
    }),
    compact: Type.Object({
      id: Uuid,
      title: Type.Optional(Type.String()),
      snippet: Type.Optional(Type.String()),
      tags: Type.Optional(Type.Array(Type.String())),
      pinned: Type.Boolean(),
      updated_at: Timestamp,
    }),
  },
  sort: { keys: ['created_at', 'updated_at', 'title'], default: 'updated_at', order: 'desc', nocase: ['title'] },
  counted: { archived: true },
  rowLocalFilters: true,
  stateIndexes: [
    { index: 'notes_user_trash', state: { deleted: true } },
    { index: 'notes_user_archived', state: { archived: true } },
  ],
  defaults: { title: null, content_format: 'markdown', tags: [], pinned: false, archived: false, custom_fields: null },
  importExtras: { archived: Type.Boolean() },
  complete(record) {
    // Absent, null or empty: derived from the (possibly new) content.
    if (record.title === null || record.title === '') record.title = titleFromContent(String(record.content ?? ''))
  },
  filters(query) {
    const out = []
    if (query.pinned !== undefined) out.push({ sql: 't.pinned = ?', params: [query.pinned ? 1 : 0] })
    if (query.archived !== undefined) {
      // Literal, not bound: SQLite uses the partial index notes_user_archived only for `archived = 1` as written.
      out.push({ sql: `t.archived = ${query.archived ? 1 : 0}`, params: [], state: { archived: Boolean(query.archived) } })
    }
    return out
  },
  hiddenByDefault(query) {
    // The trash view shows every deleted note; elsewhere archived notes need asking for.
    return query.archived === undefined && !query.only_deleted ? { sql: 't.archived = 0', params: [], state: { archived: false } } : null
  },
  compact(r) {
    return {
      id: r.id,
      title: r.title,
      snippet: firstCodePoints(String(r.content ?? ''), 160),
      tags: r.tags,
      pinned: r.pinned,
      updated_at: r.updated_at,
    }
  },
}
