import { type TSchema, Type } from '@sinclair/typebox'
import type Database from 'better-sqlite3'
import { Timestamp } from '../../../core/plugin-api.js'
import type { QueryCache } from './query-cache.js'
import type { RecordCache } from './record-cache.js'
import { StartsCache } from './starts-cache.js'
import { RecordLister } from './list.js'
import { CustomFields } from './schema-kit.js'
import { RecordStore } from './store.js'
import type { ResourceDefinition } from './types.js'
import type { Check } from './validate.js'

/** One resource made operational: its table, its lister and its compiled body checks. */
export interface Engine {
  def: ResourceDefinition
  store: RecordStore
  lister: RecordLister
  checkCreate: Check
  checkPatch: Check
  checkCustom: Check
  checkExtras: Check
  extraKeys: string[]
}

const Source = Type.String({ minLength: 1, maxLength: 64 })

export function engineFor(
  db: Database.Database,
  def: ResourceDefinition,
  cache: QueryCache | null,
  compileCheck: (schema: TSchema) => Check,
  records: RecordCache | null = null,
): Engine {
  const store = new RecordStore(db, def, records)
  // A series' starts are kept beside its record, an eighth of the records' budget (the figures are small).
  const starts = records?.enabled && def.expansion ? new StartsCache(records.limit / 8, () => db.inTransaction) : null
  if (starts) records?.attach(starts)
  // What an import entry may carry beyond the create body.
  const extras: Record<string, TSchema> = { source: Source, created_at: Timestamp, updated_at: Timestamp, ...def.importExtras }
  return {
    def,
    store,
    lister: new RecordLister(db, def, store, cache, starts),
    checkCreate: compileCheck(def.schemas.create),
    checkPatch: compileCheck(def.schemas.patch),
    checkCustom: compileCheck(CustomFields),
    checkExtras: compileCheck(Type.Partial(Type.Object(extras, { additionalProperties: false }))),
    extraKeys: Object.keys(extras),
  }
}
