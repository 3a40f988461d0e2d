import type { StoredProperty } from '../engine/properties.js'
import { MAX_DEPTH } from '../engine/references.js'
import type { ApiRecord, ImportResult, RecordsService } from '../service.js'

/**
 * Importing tasks with their subtasks (VTODO RELATED-TO, by UID): a parent Hearth already has (the
 * UID a client gave it, or `<id>@hearth` as Hearth writes it) is linked at once; a parent in the
 * same file is imported first, its subtasks in the wave after it (each wave one transaction). A
 * parent found nowhere keeps its RELATED-TO line with the task, so nothing the file said is lost.
 * A wave looks only at the subtasks of the tasks the wave before made, and there are at most as
 * many waves as tasks nest (then the rest go in as they are): a file of one long chain of subtasks
 * costs what its size does, not its length squared.
 */
export interface TaskImportEntry {
  record: Record<string, unknown>
  properties?: StoredProperty[]
}

const HEARTH_UID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@hearth$/i
const uidOf = (e: TaskImportEntry) => e.properties?.find(([n]) => n === 'UID')?.[2]

export function importTasks(
  service: RecordsService,
  userId: string,
  entries: TaskImportEntry[],
  opts: { source?: string | null; emit?: boolean },
): ImportResult {
  /** A parent the user already has of their own (not one shared with them: imports write into their own lists), by UID (each looked up once). */
  const seen = new Map<string, string | undefined>()
  const known = (uid: string): string | undefined => {
    if (seen.has(uid)) return seen.get(uid)
    let id: string | undefined
    const own = HEARTH_UID.exec(uid)?.[1]?.toLowerCase()
    if (own) {
      try {
        const task = service.get(userId, 'tasks', own, { includeDeleted: true })
        if (task.owner_id === userId) id = task.id
      } catch {
        // Not this user's: looked for as a client's UID below.
      }
    }
    id ??= service.recordsWithProperty(userId, 'tasks', 'UID', uid)[0]
    seen.set(uid, id)
    return id
  }
  type Pending = { entry: TaskImportEntry; index: number }
  const inFile = new Set(entries.map(uidOf).filter((u): u is string => Boolean(u)))
  const result: ImportResult = { created: [], failed: [] }
  const made = new Map<string, ApiRecord>()
  // Tasks waiting for a parent of this file that is still to come (not the task itself), by that parent's UID.
  const waiting = new Map<string, Pending[]>()
  let wave: Pending[] = []
  entries.forEach((entry, index) => {
    const uid = entry.record.parent_uid as string | undefined
    if (uid && inFile.has(uid) && uid !== uidOf(entry) && !known(uid)) waiting.set(uid, [...(waiting.get(uid) ?? []), { entry, index }])
    else wave.push({ entry, index })
  })
  for (let round = 0; wave.length || waiting.size; round++) {
    // A cycle of parents within the file, parents refused, or nesting deeper than the engine takes:
    // the rest go in as they are, their links to parents not made kept as RELATED-TO lines.
    if (wave.length === 0 || round > MAX_DEPTH) {
      wave = [...wave, ...[...waiting.values()].flat()].sort((a, b) => a.index - b.index)
      waiting.clear()
    }
    const bodies = wave.map(({ entry }) => {
      const { parent_uid: uid, ...record } = entry.record
      const parent = typeof uid === 'string' ? (made.get(uid)?.id ?? known(uid)) : undefined
      const properties = [...(entry.properties ?? [])]
      if (typeof uid === 'string' && !parent) properties.push(['RELATED-TO', [['RELTYPE', ['PARENT']]], uid])
      return { ...record, ...(parent ? { parent_id: parent } : {}), ...(properties.length ? { properties } : {}) }
    })
    const done = service.importMany(userId, 'tasks', bodies, opts)
    const refused = new Set(done.failed.map((f) => f.index))
    const next: Pending[] = []
    let created = 0
    wave.forEach((p, position) => {
      if (refused.has(position)) return
      const record = done.created[created++] as ApiRecord
      const uid = uidOf(p.entry)
      if (!uid) return
      made.set(uid, record)
      next.push(...(waiting.get(uid) ?? []))
      waiting.delete(uid)
    })
    result.created.push(...done.created)
    result.failed.push(...done.failed.map((f) => ({ index: wave[f.index]?.index as number, error: f.error })))
    wave = next
  }
  result.failed.sort((a, b) => a.index - b.index)
  return result
}
