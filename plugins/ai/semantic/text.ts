import { createHash } from 'node:crypto'
import type { ApiRecord, ResourceName } from '../../records/public.js'

/** The record types semantic search covers (records' resource names). */
export const SEMANTIC_TYPES = ['notes', 'contacts', 'events', 'tasks'] as const satisfies readonly ResourceName[]
export type SemanticType = (typeof SEMANTIC_TYPES)[number]

/** Bounded: embedding models take a few thousand tokens at most. */
const MAX_CHARS = 8_000

const str = (v: unknown) => (typeof v === 'string' ? v : '')
const list = (v: unknown) =>
  Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : str((x as { address?: unknown })?.address))) : []

const PARTS: Record<SemanticType, (r: ApiRecord) => string[]> = {
  notes: (r) => [str(r.title), str(r.content), list(r.tags).join(' ')],
  contacts: (r) => [str(r.display_name), str(r.company), str(r.job_title), list(r.emails).join(' '), str(r.notes)],
  events: (r) => [str(r.title), str(r.location), str(r.description)],
  tasks: (r) => [str(r.title), str(r.description), list(r.tags).join(' ')],
}

/** What is embedded of a record: the words a person would search it by. */
export function textOf(type: SemanticType, r: ApiRecord): string {
  const parts = PARTS[type](r)
  return parts.filter(Boolean).join('\n').slice(0, MAX_CHARS)
}

export const hashOf = (model: string, text: string) => createHash('sha256').update(model).update('\u0000').update(text).digest('hex')
