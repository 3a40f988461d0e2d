import type { RecordStore } from './store.js'
import type { ApiRecord, ResourceDefinition } from './types.js'
import { invalid } from './validate.js'

/**
 * A definition's `references`: a column naming another record of the same user (a subtask's
 * parent), one the writer may read too (`readable`: a member writing through a shared task list
 * links only to tasks shared with them, not to the owner's other lists). A write naming a record
 * the user does not have or the writer may not read, or (acyclic) one whose chain leads back
 * to the record being written, is refused before anything is stored. The chain is walked at most
 * MAX_DEPTH links: deeper nesting is refused too, so a walk is bounded whatever the data holds.
 */
export const MAX_DEPTH = 64

export function checkReferences(
  def: ResourceDefinition,
  stores: (resource: string) => RecordStore,
  userId: string,
  record: ApiRecord,
  changed: Set<string>,
  readable: (resource: string, record: ApiRecord) => boolean = () => true,
): void {
  for (const [column, ref] of Object.entries(def.references ?? {})) {
    const target = record[column]
    if (!changed.has(column) || target === null || target === undefined) continue
    const store = stores(ref.resource)
    const found = store.get(userId, String(target))
    // Another user's record, or one of the owner's the writer may not read, answers exactly as a
    // missing one: its existence is not disclosed.
    if (!found || !readable(ref.resource, found)) throw invalid(column, 'exists', `${column} names no record of yours`)
    if (!ref.acyclic || ref.resource !== def.name) continue
    let at: ApiRecord | null = found
    for (let depth = 0; at; depth++) {
      if (at.id === record.id) throw invalid(column, 'cycle', `${column} would make the record its own ancestor`)
      if (depth >= MAX_DEPTH) throw invalid(column, 'depth', `records nest at most ${MAX_DEPTH} deep`)
      const next: unknown = at[column]
      at = next === null || next === undefined ? null : store.get(userId, String(next))
    }
  }
}
