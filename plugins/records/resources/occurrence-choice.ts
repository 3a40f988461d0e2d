import { invalidQuery } from '../engine/validate.js'
import type { ApiRecord, RecordsService, ResourceName, WriteOptions } from '../service.js'
import type { EventOccurrences, OccurrenceScope } from './event-occurrences.js'

/**
 * Which record a PATCH or DELETE acts on: the record itself, or, for a recurring event asked with
 * `scope=this|following`, the occurrence `occurrence_start` names (and, for `following`, the ones
 * after it). `scope=all`, or no scope, is the whole record. A resource without occurrences
 * (`occurrences` absent) always acts on the record.
 */
export interface OccurrenceChoice {
  scope?: OccurrenceScope | 'all'
  occurrence_start?: string
}

export interface ChosenWrites {
  update(userId: string, resource: ResourceName, id: string, patch: unknown, choice: OccurrenceChoice, opts: WriteOptions): ApiRecord
  remove(
    userId: string,
    resource: ResourceName,
    id: string,
    choice: OccurrenceChoice & { permanent?: boolean },
    opts: WriteOptions,
  ): ApiRecord | { id: string }
}

function occurrenceOf(choice: OccurrenceChoice): { scope: OccurrenceScope; start: string } | null {
  if (!choice.scope || choice.scope === 'all') return null
  if (!choice.occurrence_start)
    throw invalidQuery('occurrence_start', 'required', `occurrence_start is required with scope=${choice.scope}`)
  return { scope: choice.scope, start: choice.occurrence_start }
}

export function chosenWrites(service: RecordsService, occurrences?: EventOccurrences): ChosenWrites {
  return {
    update(userId, resource, id, patch, choice, opts) {
      const one = occurrences ? occurrenceOf(choice) : null
      if (one && occurrences) return occurrences.update(userId, id, one.start, one.scope, patch as Record<string, unknown>, opts)
      return service.update(userId, resource, id, patch, opts)
    },
    remove(userId, resource, id, choice, opts) {
      const one = occurrences ? occurrenceOf(choice) : null
      if (one && occurrences) return occurrences.remove(userId, id, one.start, one.scope, opts)
      return service.remove(userId, resource, id, { permanent: choice.permanent, ...opts })
    },
  }
}
