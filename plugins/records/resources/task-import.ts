import type { StoredProperty } from '../engine/properties.js'
import type { ApiRecord, ImportResult, RecordsService } from '../service.js'

/**
 * Importing tasks with their subtasks (VTODO RELATED-TO, by UID): a parent Hearth already has (the
 * UID a client gave it, or `<id>@hearth` as Hearth writes it) is linked at once; a parent in the
 * same file is imported first, its subtasks in the wave after it (each wave one transaction). A
 * parent found nowhere keeps its RELATED-TO line with the task, so nothing the file said is lost.
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
  /** A parent the user already has, by UID. */
  const known = (uid: string): string | undefined => {
    const own = HEARTH_UID.exec(uid)?.[1]?.toLowerCase()
    if (own) {
      try {
        return service.get(userId, 'tasks', own, { includeDeleted: true }).id
      } catch {
        // Not this user's: looked for as a client's UID below.
      }
    }
    return service.recordsWithProperty(userId, 'tasks', 'UID', uid)[0]
  }
  const inFile = new Set(entries.map(uidOf).filter((u): u is string => Boolean(u)))
  const result: ImportResult = { created: [], failed: [] }
  const made = new Map<string, ApiRecord>()
  let pending = entries.map((entry, index) => ({ entry, index }))
  while (pending.length) {
    const wave: typeof pending = []
    const later: typeof pending = []
    for (const p of pending) {
      const uid = p.entry.record.parent_uid as string | undefined
      // Waiting for a parent of this file that is still to come (and not this task itself).
      if (uid && !made.has(uid) && inFile.has(uid) && uid !== uidOf(p.entry) && !known(uid)) later.push(p)
      else wave.push(p)
    }
    // A cycle of parents within the file: the rest go in as they are, their links refused by the engine.
    if (wave.length === 0) wave.push(...later.splice(0))
    const bodies = wave.map(({ entry }) => {
      const { parent_uid: uid, ...record } = entry.record
      const parent = typeof uid === 'string' ? (made.get(uid)?.id ?? known(uid)) : undefined
      const properties = [...(entry.properties ?? [])]
      if (typeof uid === 'string' && !parent) properties.push(['RELATED-TO', [['RELTYPE', ['PARENT']]], uid])
      return { ...record, ...(parent ? { parent_id: parent } : {}), ...(properties.length ? { properties } : {}) }
    })
    const done = service.importMany(userId, 'tasks', bodies, opts)
    const refused = new Set(done.failed.map((f) => f.index))
    let next = 0
    wave.forEach((p, position) => {
      if (refused.has(position)) return
      const record = done.created[next++] as ApiRecord
      const uid = uidOf(p.entry)
      if (uid) made.set(uid, record)
    })
    result.created.push(...done.created)
    result.failed.push(...done.failed.map((f) => ({ index: wave[f.index]?.index as number, error: f.error })))
    pending = later
  }
  result.failed.sort((a, b) => a.index - b.index)
  return result
}
