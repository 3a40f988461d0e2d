/**
 * The records service: everything the routes, the import/export routes and
 * the bench do with notes, contacts, events and tasks. Resource names are 'notes',
 * 'contacts', 'events', 'tasks'; `userId` is the caller: every read answers what they may read (their own
 * records and those of the collections shared with them, sharing/access.ts decides), every write
 * passes the same access check (404 unreadable, 403 read-only); a record's `owner_id` says whose
 * it is, and a create body naming another member's `owner_id` writes into their collection; bodies are validated
 * here with the same schemas the routes declare, so a bad entry throws an
 * HttpError (VALIDATION_ERROR with details {field, constraint}) whoever calls.
 *
 *   create(userId, resource, body, { source })        → record       (emits <x>.created)
 *   importMany(userId, resource, entries, { source })  → { created, failed }
 *       entries may carry source, created_at, updated_at (and a note's archived)
 *       beside the create body; good entries are written in ONE transaction,
 *       bad ones reported by index with their HttpError; nothing half-written.
 *   get(userId, resource, id, { includeDeleted })      → record or 404
 *   list(userId, resource, query, { bytes })           → { items, total } (API list semantics; reading stops past `bytes`)
 *   listPaced(userId, resource, query, { bytes })      → the same, the event loop given back between chunks of rows read
 *   listAll(userId, resource, { includeDeleted })      → every record of the user's own, oldest first
 *   birthdays.series(userId) / .list(...)              → the read-only birthdays calendar (events made from contacts;
 *       list and listPaced of events with calendar_name=birthdays answer it, and event writes into it are refused)
 *   batches(userId, resource, { includeDeleted, rows }) → every record, oldest first, a batch at a time (export)
 *   update(userId, resource, id, patch, { ifMatch })   → record       (emits <x>.updated)
 *   mergeCustom(userId, resource, id, fields, { ifMatch }) → record    (emits <x>.updated)
 *   setArchived(userId, noteId, archived, { ifMatch }) → note         (emits note.updated on change)
 *   act(userId, resource, id, action, { ifMatch })     → record       (a definition's action: task complete/reopen; emits <x>.updated on change)
 *   remove(userId, resource, id, { permanent, ifMatch }) → record | {id} (emits <x>.deleted)
 *   restore(userId, resource, id, { ifMatch })         → record       (emits <x>.restored)
 *   propertiesOf / setProperties(userId, resource, id, lines) → the format lines a record keeps (DAV objects)
 *   purgeTrash(retentionDays)                          → records purged (emits <x>.deleted {id})
 *
 * Every record carries `etag` ("<version>"); every write raises the version. `ifMatch` is an
 * If-Match header value (`*` or a list of tags): when it does not hold for the stored record the
 * write throws 412 PRECONDITION_FAILED, compared inside the write statement itself.
 *
 * Inside the plugin the service is passed to route modules; outside (bench)
 * build one with createRecordsService({ db, events, now, validator }).
 */
import { randomUUID } from 'node:crypto'
import type { TSchema } from '@sinclair/typebox'
import type Database from 'better-sqlite3'
import { type EventBus, HttpError, type Metrics } from '../../core/plugin-api.js'
import { type CustomFields, mergeCustomFields } from './engine/custom-fields.js'
import { type Engine, engineFor } from './engine/engine.js'
import { checkReferences } from './engine/references.js'
import { ifMatchHolds } from '../../lib/etag.js'
import { pacedSteps } from '../../lib/paced-stream.js'
import { preconditionFailed, versionOf } from './engine/etag.js'
import { propertyStore, type StoredProperty } from './engine/properties.js'
import { ExternalWrites } from './engine/external-writes.js'
import { QueryCache } from './engine/query-cache.js'
import { type CacheBudget, RecordCache } from './engine/record-cache.js'
import type { Page } from './engine/list.js'
import type { ApiRecord, ListQuery, ResourceDefinition } from './engine/types.js'
import type { Check } from './engine/validate.js'
import { resources } from './resources/index.js'
import { type MemberLookup, type RecordAction, RecordAccess } from './sharing/access.js'
import { BIRTHDAYS, type BirthdaysCalendar, birthdaysCalendar } from './resources/birthdays.js'

export type ResourceName = keyof typeof resources
export type { ApiRecord, Page }

/** A conditional write: an If-Match header value (`*`, or one or more quoted tags). */
export interface WriteOptions {
  ifMatch?: string
}

export interface ImportResult {
  created: ApiRecord[]
  failed: Array<{ index: number; error: HttpError }>
}

export interface ImportOptions {
  source?: string | null
  emit?: boolean
  /** Run for each record written, with its entry's index, inside the import's transaction (what is stored beside it). */
  alongside?: (record: ApiRecord, index: number) => void
}

export interface RecordsService {
  readonly resources: readonly ResourceName[]
  definition(resource: ResourceName): ResourceDefinition
  /** Sets fields only imports and the service itself write (a resource's importExtras, e.g. an override's series). */
  setExtras(userId: string, resource: ResourceName, id: string, fields: Record<string, unknown>): ApiRecord
  /** Format properties kept from imports (record id → lines), for an export. */
  properties(userId: string, resource: ResourceName): Map<string, StoredProperty[]>
  /** Format properties kept for some records (record id → lines), for a few objects (DAV). */
  propertiesOf(userId: string, resource: ResourceName, ids: readonly string[]): Map<string, StoredProperty[]>
  /**
   * Replaces the format properties a record keeps (a DAV client's object rewritten: what Hearth has
   * no field for stays with the record); [] removes them. The record must be the user's.
   */
  setProperties(userId: string, resource: ResourceName, id: string, lines: StoredProperty[]): void
  /** Who may read and write which records (the sharing rules every method here applies). */
  readonly access: RecordAccess
  /** The shares made with this user changed: their cached list results are computed again. */
  sharingChanged(userId: string): void
  /** Everyone who may read this record now (its owner first): who hears of its changes. */
  readers(resource: ResourceName, record: Record<string, unknown>): string[]
  /** Ids of the user's records that kept a property with this value (a UID an earlier import carried). */
  recordsWithProperty(userId: string, resource: ResourceName, name: string, value: string): string[]
  /** The instance's IANA time zone (HEARTH_TIMEZONE). */
  readonly timezone: string
  /** The read-only birthdays calendar, made from the contacts each caller may read. */
  readonly birthdays: BirthdaysCalendar
  create(userId: string, resource: ResourceName, body: unknown, opts?: { source?: string | null }): ApiRecord
  importMany(userId: string, resource: ResourceName, entries: unknown[], opts?: ImportOptions): ImportResult
  get(userId: string, resource: ResourceName, id: string, opts?: { includeDeleted?: boolean }): ApiRecord
  list(userId: string, resource: ResourceName, query: Partial<ListQuery>, opts?: { bytes?: number }): Page
  /** The same page, read a chunk of records at a time with the event loop given back between them (the routes, large pages). */
  listPaced(userId: string, resource: ResourceName, query: Partial<ListQuery>, opts?: { bytes?: number }): Promise<Page>
  /** The user's own records (not those shared with them): what their own collections hold. */
  listAll(userId: string, resource: ResourceName, opts?: { includeDeleted?: boolean }): ApiRecord[]
  /**
   * Every record, oldest first, in batches of at most `rows` (default 32), each read when the one
   * before has been used: whoever walks all of a user's records (an export, an index) holds one
   * batch. Records written meanwhile come in a later batch when their row is newer.
   */
  batches(userId: string, resource: ResourceName, opts?: { includeDeleted?: boolean; rows?: number; own?: boolean }): Generator<ApiRecord[]>
  update(userId: string, resource: ResourceName, id: string, patch: unknown, opts?: WriteOptions): ApiRecord
  mergeCustom(userId: string, resource: ResourceName, id: string, fields: unknown, opts?: WriteOptions): ApiRecord
  setArchived(userId: string, id: string, archived: boolean, opts?: WriteOptions): ApiRecord
  /** Runs one of the resource's actions (its definition's `actions`); unchanged records are answered as they are. */
  act(userId: string, resource: ResourceName, id: string, action: string, opts?: WriteOptions): ApiRecord
  /**
   * An attendee's answer to an invitation: their own entry's status on the organizer's event (or
   * on the one occurrence an override holds), written as the organizer's (emits event.updated).
   */
  answer(userId: string, id: string, status: string): ApiRecord
  remove(userId: string, resource: ResourceName, id: string, opts?: { permanent?: boolean } & WriteOptions): ApiRecord | { id: string }
  restore(userId: string, resource: ResourceName, id: string, opts?: WriteOptions): ApiRecord
  purgeTrash(retentionDays: number): number
}

export interface ServiceDeps {
  db: Database.Database
  events: Pick<EventBus, 'emit'>
  now: () => number
  /** Compiles a body schema into a check with the API's rules: the plugin passes api.validator. */
  validator: (schema: TSchema) => Check
  /** Keep recent list totals and page keys (default true); the bench turns it off to time the queries. */
  listCache?: boolean
  /**
   * Bytes of records kept after a read (engine/record-cache.ts); 0: none. Default 32 MiB.
   */
  recordCacheBytes?: number
  /** Where the record cache's figures are published (the plugin API's metrics). */
  metrics?: Pick<Metrics, 'register'>
  /** The instance's IANA time zone: events' default zone and the zone of date windows (default UTC). */
  timezone?: string
  /** Told when a record is erased for good (the shares of a note go with it). */
  onErased?: (resource: ResourceName, record: ApiRecord) => void
  /** Who a member is (by id or email): an event naming a member among its attendees invites them. */
  member?: MemberLookup
}

export function createRecordsService({
  db,
  events,
  now,
  validator,
  listCache = true,
  recordCacheBytes = 32 * 1024 * 1024,
  metrics,
  timezone = 'UTC',
  onErased,
  member,
}: ServiceDeps): RecordsService {
  const access = new RecordAccess(db, member)
  const context = { zone: timezone }
  // Unicode-aware lower case for partial, case-insensitive filters (SQLite's lower() folds ASCII only).
  db.function('records_fold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : null))
  const external = new ExternalWrites(db)
  const cache = new QueryCache(external, now, () => db.inTransaction)
  const properties = propertyStore(db)
  const recordCaches = new Map<string, RecordCache>()
  // One budget for every resource together: the one a household reads most may use what the others leave.
  const cacheBudget: CacheBudget = { limit: recordCacheBytes, used: 0 }
  const recordCache = (name: string) => {
    if (recordCacheBytes <= 0) return null
    const cache = new RecordCache(cacheBudget, () => db.inTransaction, external)
    recordCaches.set(name, cache)
    return cache
  }
  const engines = Object.fromEntries(
    Object.entries(resources).map(([name, def]) => [name, engineFor(db, def, listCache ? cache : null, validator, recordCache(name))]),
  ) as Record<ResourceName, Engine>
  metrics?.register(
    'counter',
    'hearth_record_cache_requests_total',
    'Record reads answered from the record cache, by resource',
    ['resource', 'result'],
    () =>
      [...recordCaches].flatMap(([resource, c]) => [
        { labels: { resource, result: 'hit' }, value: c.stats.hits },
        { labels: { resource, result: 'miss' }, value: c.stats.misses },
      ]),
  )
  metrics?.register('gauge', 'hearth_record_cache_bytes', 'Bytes of JSON the record cache holds, by resource', ['resource'], () =>
    [...recordCaches].map(([resource, c]) => ({ labels: { resource }, value: c.heldBytes })),
  )
  const engine = (resource: ResourceName): Engine => {
    const e = engines[resource]
    if (!e) throw new HttpError('NOT_FOUND', `Unknown resource ${resource}`)
    return e
  }
  const iso = () => new Date(now()).toISOString()
  const birthdays = birthdaysCalendar(db, access, { contacts: engine('contacts').def, events: engine('events').def })
  /** Who reads these records (as they were and as they are): whose cached lists a change makes stale. */
  const audience = (e: Engine, ...records: Array<Record<string, unknown>>) => new Set(records.flatMap((r) => access.readers(e.def, r)))
  // Every change goes through here: the cached list results of everyone who reads the record go
  // stale at once, except those the query cache can carry across the write of one record in its
  // own row (`row`: its sequence number, as the write returned it; none for writes of several
  // rows, imports and erasures). The event is the owner's (`userId`); realtime also hands it to
  // those who may read it when it is delivered. `actor` is the member whose request made it (a
  // sharee writing the owner's collection; none when no one asked): what it costs is theirs (an
  // invitation email).
  const emit = (
    e: Engine,
    action: string,
    readers: Set<string>,
    owner: string,
    actor: string | null,
    id: string,
    data: unknown,
    row?: { seq: number; created: boolean },
  ) => {
    for (const reader of readers) cache.bump(reader, row && { resource: e.def.name, ...row })
    events.emit(`${e.def.singular}.${action}`, { userId: owner, ...(actor ? { actorId: actor } : {}), id, at: iso(), data })
  }
  /** What an erasure's event carries: the id, whose it was and its collection (realtime decides who hears of it). */
  const erased = (e: Engine, record: Record<string, unknown>) => {
    const column = e.def.sharing?.column
    return {
      id: record.id as string,
      owner_id: record.owner_id,
      ...(column && column !== 'id' ? { [column]: record[column] } : {}),
      // Its attendees hear of it too (realtime asks who may read the event's data).
      ...(e.def.invitations ? { attendees: record.attendees } : {}),
    }
  }
  const notFound = (e: Engine) => new HttpError('NOT_FOUND', `${e.def.singular[0]?.toUpperCase()}${e.def.singular.slice(1)} not found`)

  /** The record whoever owns it, once the caller may do `action` to it (404 when they may not read it, 403 read-only). */
  const found = (e: Engine, caller: string, id: string, action: RecordAction): ApiRecord => {
    const record = e.store.find(id)
    if (!record) throw notFound(e)
    access.check(caller, e.def, record, action)
    return record
  }

  /** As `found`, for a record out of the trash. */
  const active = (e: Engine, caller: string, id: string, action: RecordAction = 'update'): ApiRecord => {
    const record = found(e, caller, id, action)
    if (record.deleted_at) throw notFound(e)
    return record
  }

  /**
   * The version a conditional write may replace: null (any) without If-Match, the record's own
   * when If-Match holds for it; 412 otherwise. The write statement then compares against it.
   */
  const expected = (current: ApiRecord, ifMatch: string | undefined): number | null => {
    if (ifMatch === undefined) return null
    if (!ifMatchHolds(ifMatch, current.etag as string)) throw preconditionFailed(current.etag as string)
    return versionOf(current.etag) as number
  }

  /** After a write statement wrote nothing although the record was there: it changed meanwhile. */
  const changedMeanwhile = (e: Engine, owner: string, id: string) => {
    const now = e.store.get(owner, id)
    return now ? preconditionFailed(now.etag as string) : notFound(e)
  }

  const dedupeTags = (record: Record<string, unknown>) => {
    if (Array.isArray(record.tags)) record.tags = [...new Set(record.tags)]
  }

  const stores = (resource: string) => engine(resource as ResourceName).store
  /** Completes a record of `owner`'s that `caller` writes; what it references must be the owner's and readable by the caller. */
  const settle = (e: Engine, caller: string, owner: string, record: ApiRecord, changed: Set<string>, previous: ApiRecord | null) => {
    e.def.complete(record, changed, previous, { ...context, now: now() })
    checkReferences(e.def, stores, owner, record, changed, (resource, target) =>
      access.mayRead(caller, engine(resource as ResourceName).def, target),
    )
  }

  /**
   * Validates and completes a new record of `caller`'s, or of the member its `owner_id` names
   * when they share that collection with the caller for writing; nothing is written.
   */
  const build = (
    e: Engine,
    caller: string,
    body: unknown,
    extras: Record<string, unknown>,
    source: string | null | undefined,
  ): ApiRecord => {
    e.checkCreate(body)
    const { owner_id: owner, ...input } = body as Record<string, unknown>
    const stamp = iso()
    const record: ApiRecord = { id: randomUUID(), ...structuredClone(e.def.defaults), ...input }
    record.custom_fields = input.custom_fields ? mergeCustomFields(null, input.custom_fields as CustomFields) : null
    for (const key of Object.keys(e.def.importExtras ?? {})) if (extras[key] !== undefined) record[key] = extras[key]
    dedupeTags(record)
    // Whose collection it goes into is checked first: nothing of another member's records is looked at before.
    record.owner_id = (owner as string | undefined) ?? caller
    access.check(caller, e.def, record, 'create')
    settle(e, caller, String(record.owner_id), record, new Set(Object.keys(input)), null)
    access.keepAnswers(caller, e.def, record, null)
    record.source = (extras.source as string | undefined) ?? source ?? 'local'
    record.created_at = extras.created_at ? new Date(extras.created_at as string).toISOString() : stamp
    record.updated_at = extras.updated_at ? new Date(extras.updated_at as string).toISOString() : record.created_at
    record.deleted_at = null
    return e.store.canonical(record, 1)
  }

  const service: RecordsService = {
    resources: Object.keys(resources) as ResourceName[],
    definition: (resource) => engine(resource).def,
    access,
    readers: (resource, record) => access.readers(engine(resource).def, record),
    sharingChanged: (userId) => cache.bump(userId),
    properties: (userId, resource) => properties.forUser(userId, resource),
    propertiesOf(userId, resource, ids) {
      // Each record's lines are kept under its owner: asked of each owner for the records the caller may read.
      const e = engine(resource)
      const byOwner = new Map<string, string[]>()
      for (const id of ids) {
        const record = e.store.find(id)
        if (!record || !access.mayRead(userId, e.def, record)) continue
        const owner = String(record.owner_id)
        byOwner.set(owner, [...(byOwner.get(owner) ?? []), id])
      }
      const out = new Map<string, StoredProperty[]>()
      for (const [owner, owned] of byOwner) for (const [id, lines] of properties.of(owner, resource, owned)) out.set(id, lines)
      return out
    },
    setProperties(userId, resource, id, lines) {
      const record = found(engine(resource), userId, id, 'update')
      properties.set(String(record.owner_id), resource, id, lines)
    },
    recordsWithProperty: (userId, resource, name, value) => properties.recordsWith(userId, resource, name, value),
    timezone,
    birthdays,

    create(userId, resource, body, opts = {}) {
      const e = engine(resource)
      const record = build(e, userId, body, {}, opts.source)
      const owner = String(record.owner_id)
      const seq = e.store.insert(owner, record)
      emit(e, 'created', audience(e, record), owner, userId, record.id, record, { seq, created: true })
      return record
    },

    importMany(userId, resource, entries, opts = {}) {
      const e = engine(resource)
      const result: ImportResult = { created: [], failed: [] }
      const kept = new Map<string, StoredProperty[]>()
      const indexOf = new Map<string, number>()
      entries.forEach((entry, index) => {
        try {
          if (entry === null || typeof entry !== 'object' || Array.isArray(entry))
            throw new HttpError('VALIDATION_ERROR', 'entry must be an object', { field: '(root)', constraint: 'type' })
          const body: Record<string, unknown> = {}
          const extras: Record<string, unknown> = {}
          let lines: StoredProperty[] | undefined
          for (const [k, v] of Object.entries(entry)) {
            // What the file carried beyond Hearth's fields (the parsers' `properties`): kept aside.
            if (k === 'properties' && Array.isArray(v)) lines = v as StoredProperty[]
            else if (e.extraKeys.includes(k)) {
              if (v !== null && v !== undefined) extras[k] = v
            } else body[k] = v
          }
          e.checkExtras(extras)
          const record = build(e, userId, body, extras, opts.source)
          result.created.push(record)
          indexOf.set(record.id, index)
          if (lines?.length) kept.set(record.id, lines)
        } catch (err) {
          if (!(err instanceof HttpError)) throw err
          result.failed.push({ index, error: err })
        }
      })
      db.transaction(() => {
        for (const record of result.created) {
          e.store.insert(String(record.owner_id), record)
          const lines = kept.get(record.id)
          if (lines) properties.set(String(record.owner_id), resource, record.id, lines)
          opts.alongside?.(record, indexOf.get(record.id) as number)
        }
      })()
      const readers = audience(e, ...result.created)
      for (const reader of readers.size ? readers : [userId]) cache.bump(reader)
      if (opts.emit !== false) for (const r of result.created) emit(e, 'created', readers, String(r.owner_id), userId, r.id, r)
      return result
    },

    get(userId, resource, id, opts = {}) {
      const e = engine(resource)
      const record = e.store.find(id)
      if (!record || (record.deleted_at && !opts.includeDeleted)) throw notFound(e)
      access.check(userId, e.def, record, 'read')
      return record
    },

    list(userId, resource, query, opts = {}) {
      const q = { limit: 20, offset: 0, ...query } as ListQuery
      if (resource === 'events' && q.calendar_name === BIRTHDAYS) return birthdays.list(userId, q, now(), timezone)
      const e = engine(resource)
      return e.lister.list(access.view(userId, e.def, q.owner === 'me'), q, { now: now(), zone: timezone }, opts.bytes)
    },

    listPaced(userId, resource, query, opts = {}) {
      const q = { limit: 20, offset: 0, ...query } as ListQuery
      if (resource === 'events' && q.calendar_name === BIRTHDAYS) return Promise.resolve(birthdays.list(userId, q, now(), timezone))
      const e = engine(resource)
      return pacedSteps(e.lister.listSteps(access.view(userId, e.def, q.owner === 'me'), q, { now: now(), zone: timezone }, opts.bytes))
    },

    listAll(userId, resource, opts = {}) {
      return engine(resource).store.all(userId, Boolean(opts.includeDeleted))
    },

    *batches(userId, resource, opts = {}) {
      const { store, def } = engine(resource)
      const rows = opts.rows ?? 32
      for (let after = 0; ;) {
        // The shares are read again for each batch: a collection unshared meanwhile stops at once.
        const view = access.view(userId, def, opts.own)
        const batch = view.visible
          ? store.afterIn(view.scope, Boolean(opts.includeDeleted), after, rows)
          : store.after(userId, Boolean(opts.includeDeleted), after, rows)
        const readable = view.visible ? batch.filter((b) => view.visible?.(b.record)) : batch
        if (readable.length > 0) yield readable.map((b) => b.record)
        if (batch.length < rows) return
        after = batch[batch.length - 1].seq
      }
    },

    update(userId, resource, id, patch, opts = {}) {
      const e = engine(resource)
      e.checkPatch(patch)
      const current = active(e, userId, id)
      const version = expected(current, opts.ifMatch)
      const change = patch as Record<string, unknown>
      if (Object.keys(change).length === 0) return current
      const next: ApiRecord = { ...current, ...change }
      if ('custom_fields' in change) {
        next.custom_fields =
          change.custom_fields === null
            ? null
            : mergeCustomFields(current.custom_fields as CustomFields, change.custom_fields as CustomFields)
      }
      dedupeTags(next)
      // Moved to another collection (an event to another calendar): the caller must write there too.
      if (RecordAccess.target(e.def, next) !== RecordAccess.target(e.def, current)) access.check(userId, e.def, next, 'create')
      settle(e, userId, String(current.owner_id), next, new Set(Object.keys(change)), current)
      access.keepAnswers(userId, e.def, next, current)
      next.updated_at = iso()
      return write(e, userId, current, next, version)
    },

    answer(userId, id, status) {
      const e = engine('events')
      const current = active(e, userId, id, 'answer')
      const next = access.answered(userId, current, status) as ApiRecord
      if (JSON.stringify(next.attendees) === JSON.stringify(current.attendees)) return current
      return write(e, userId, current, { ...next, updated_at: iso() })
    },

    act(userId, resource, id, action, opts = {}) {
      const e = engine(resource)
      const run = e.def.actions?.[action]
      if (!run) throw new HttpError('NOT_FOUND', `No action ${action} on ${resource}`)
      const current = active(e, userId, id)
      const version = expected(current, opts.ifMatch)
      const change = run.apply(current, { ...context, now: now() })
      if (!change) return current
      const next: ApiRecord = { ...current, ...change }
      settle(e, userId, String(current.owner_id), next, new Set(Object.keys(change)), current)
      next.updated_at = iso()
      return write(e, userId, current, next, version)
    },

    setExtras(userId, resource, id, fields) {
      const e = engine(resource)
      e.checkExtras(fields)
      const current = active(e, userId, id)
      return write(e, userId, current, { ...current, ...fields, updated_at: iso() })
    },

    mergeCustom(userId, resource, id, fields, opts = {}) {
      const e = engine(resource)
      e.checkCustom(fields)
      const current = active(e, userId, id)
      const version = expected(current, opts.ifMatch)
      const next = {
        ...current,
        custom_fields: mergeCustomFields(current.custom_fields as CustomFields, fields as CustomFields),
        updated_at: iso(),
      }
      return write(e, userId, current, next, version)
    },

    setArchived(userId, id, archived, opts = {}) {
      const e = engine('notes')
      const current = active(e, userId, id)
      const version = expected(current, opts.ifMatch)
      if (current.archived === archived) return current
      return write(e, userId, current, { ...current, archived, updated_at: iso() }, version)
    },

    remove(userId, resource, id, opts = {}) {
      const e = engine(resource)
      if (opts.permanent) {
        // The record (in the trash or not) must be there: whose it is decides who may erase it.
        const current = found(e, userId, id, 'delete')
        const owner = String(current.owner_id)
        const version = opts.ifMatch === undefined ? null : expected(current, opts.ifMatch)
        const readers = audience(e, current)
        if (!e.store.remove(owner, id, version)) throw version === null ? notFound(e) : changedMeanwhile(e, owner, id)
        emit(e, 'deleted', readers, owner, userId, id, erased(e, current))
        onErased?.(resource, current)
        return { id }
      }
      const current = active(e, userId, id, 'delete')
      const owner = String(current.owner_id)
      const deletedAt = iso()
      const next = e.store.setDeleted(owner, id, deletedAt, expected(current, opts.ifMatch))
      if (next === null) throw changedMeanwhile(e, owner, id)
      const deleted = e.store.canonical({ ...current, deleted_at: deletedAt }, next.version)
      emit(e, 'deleted', audience(e, current), owner, userId, id, deleted, { seq: next.seq, created: false })
      return deleted
    },

    restore(userId, resource, id, opts = {}) {
      const e = engine(resource)
      const current = found(e, userId, id, 'restore')
      const owner = String(current.owner_id)
      const version = expected(current, opts.ifMatch)
      if (!current.deleted_at) return current
      const next = e.store.setDeleted(owner, id, null, version)
      if (next === null) throw changedMeanwhile(e, owner, id)
      const restored = e.store.canonical({ ...current, deleted_at: null }, next.version)
      emit(e, 'restored', audience(e, current), owner, userId, id, restored, { seq: next.seq, created: false })
      return restored
    },

    purgeTrash(retentionDays) {
      const cutoff = new Date(now() - retentionDays * 86_400_000).toISOString()
      let purged = 0
      for (const e of Object.values(engines)) {
        const gone = db.transaction(() => e.store.purge(cutoff))()
        for (const { user_id, ...row } of gone) {
          const record = { ...row, owner_id: user_id }
          emit(e, 'deleted', audience(e, record), user_id, null, row.id, erased(e, record))
          onErased?.(e.def.name as ResourceName, record as ApiRecord)
        }
        purged += gone.length
      }
      return purged
    },
  }

  /** `actor` writes a changed record into its owner's table (at version `version` when a condition holds it); the record as stored. */
  function write(e: Engine, actor: string, current: ApiRecord, changed: ApiRecord, version: number | null = null): ApiRecord {
    const owner = String(current.owner_id)
    const next = e.store.update(owner, changed, version)
    if (next === null) throw changedMeanwhile(e, owner, changed.id)
    const record = e.store.canonical(changed, next.version)
    emit(e, 'updated', audience(e, current, record), owner, actor, record.id, record, { seq: next.seq, created: false })
    return record
  }

  return service
}
