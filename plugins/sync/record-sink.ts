import { HttpError } from '../../core/plugin-api.js'
import type { RecordsPluginService, ResourceName, StoredProperty } from '../records/public.js'
import type { ConnectorRow, LinkRow, RunCounts, SyncStore } from './store.js'

/**
 * Writes what a remote object holds into the user's records, through the records
 * service, and keeps the link (connector, href, part) → record id so a re-run
 * updates instead of duplicating. `part` is '' for the object's main entry and the
 * occurrence start for an event's overridden occurrence (RECURRENCE-ID) in the same object.
 * A remote deletion moves the record to the trash (restorable for the retention period).
 */
export interface RemotePart {
  part: string
  record: Record<string, unknown>
  properties?: StoredProperty[]
}

/** Fields a file carries that a patch never sets (the record's own stamps, its source, import-only links). */
const NOT_PATCHED = new Set(['source', 'created_at', 'updated_at', 'series_uid', 'recurrence_id', 'occurrence_start', 'properties'])

export function recordSink(
  records: RecordsPluginService,
  store: SyncStore,
  connector: ConnectorRow,
  resource: ResourceName,
  counts: RunCounts,
) {
  const { service } = records
  const userId = connector.user_id
  const byHref = new Map<string, LinkRow[]>()
  for (const link of store.links(connector.id)) byHref.set(link.href, [...(byHref.get(link.href) ?? []), link])

  const definition = service.definition(resource)
  const patchable = Object.keys(definition.schemas.patch.properties)

  /** The remote entry as a complete patch: a field the remote dropped returns to its default. */
  const patchOf = (record: Record<string, unknown>) => {
    const patch: Record<string, unknown> = {}
    for (const key of patchable) {
      if (NOT_PATCHED.has(key)) continue
      if (record[key] !== undefined) patch[key] = record[key]
      else if (key in definition.defaults) patch[key] = structuredClone(definition.defaults[key])
    }
    return patch
  }

  const create = (record: Record<string, unknown>, properties: StoredProperty[] | undefined, extras: Record<string, unknown>) => {
    const body: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(record)) if (k !== 'source' && k !== 'series_uid' && k !== 'recurrence_id') body[k] = v
    if (!extras.recurrence_id) delete body.occurrence_start
    const entry = { ...body, ...extras, ...(properties?.length ? { properties } : {}) }
    const result = service.importMany(userId, resource, [entry], { source: connector.kind })
    if (result.failed[0]) throw result.failed[0].error
    return result.created[0].id
  }

  const update = (link: LinkRow, record: Record<string, unknown>): boolean => {
    try {
      service.update(userId, resource, link.record_id, patchOf(record))
      return true
    } catch (err) {
      // Deleted here (or purged from the trash): the remote object makes a new record.
      if (err instanceof HttpError && err.code === 'NOT_FOUND') return false
      throw err
    }
  }

  const trash = (link: LinkRow) => {
    try {
      service.remove(userId, resource, link.record_id)
    } catch (err) {
      if (!(err instanceof HttpError && err.code === 'NOT_FOUND')) throw err
    }
    store.dropLink(link)
  }

  return {
    hrefs: () => [...byHref.keys()],
    hrefsIn: (collection: string) => [...byHref.entries()].filter(([, ls]) => ls[0]?.collection === collection).map(([h]) => h),
    etag: (href: string) => byHref.get(href)?.find((l) => l.part === '')?.etag ?? byHref.get(href)?.[0]?.etag ?? null,
    known: (href: string) => byHref.has(href),

    /** Creates or updates the records of one remote object (its main entry first). */
    put(href: string, collection: string, etag: string | null, parts: RemotePart[]) {
      const before = byHref.get(href) ?? []
      const after: LinkRow[] = []
      let mainId: string | null = null
      const ordered = [...parts].sort((a, b) => (a.part === '' ? -1 : b.part === '' ? 1 : 0))
      for (const { part, record, properties } of ordered) {
        const link = before.find((l) => l.part === part)
        let recordId = link && update(link, record) ? link.record_id : null
        if (!recordId) {
          const override = part !== '' && mainId ? { recurrence_id: mainId, occurrence_start: record.occurrence_start } : {}
          recordId = create(record, properties, override)
        }
        if (part === '') mainId = recordId
        const row: LinkRow = { connector_id: connector.id, href, part, collection, resource, record_id: recordId, etag }
        store.putLink(row)
        after.push(row)
      }
      for (const gone of before.filter((l) => !after.some((a) => a.part === l.part))) trash(gone)
      byHref.set(href, after)
      if (before.length) counts.updated++
      else counts.created++
    },

    /** The remote object is gone: its records go to the trash. */
    remove(href: string) {
      const links = byHref.get(href)
      if (!links) return
      for (const link of links) trash(link)
      byHref.delete(href)
      counts.deleted++
    },
  }
}

export type RecordSink = ReturnType<typeof recordSink>
