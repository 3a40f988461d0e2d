import { HttpError } from '../../core/plugin-api.js'
import { parseICalendar, parseVCards, type RecordsPluginService } from '../records/public.js'
import { davClient, DavError, InvalidSyncToken, type Member } from './dav-client.js'
import { readKeepArchive } from './keep.js'
import { recordSink, type RecordSink, type RemotePart } from './record-sink.js'
import type { ConnectorRow, RunCounts, RunRow, SyncStore } from './store.js'

/**
 * One run of a connector: pull, write through the records service, log the
 * outcome in sync_runs. A failure of the remote side ends the run as `failed`
 * with its message (never a credential); what was written before stays.
 */
export interface RunnerDeps {
  records: RecordsPluginService
  store: SyncStore
  decrypt(ciphertext: string): string
  now(): number
  allowPrivate: boolean
}

/** A problem with what the remote sent for one object: counted as failed, the run goes on. */
class EntryError extends Error {}

export function connectorRunner(deps: RunnerDeps) {
  const running = new Set<string>()
  /** Finished runs by "kind status", for hearth_sync_runs_total. */
  const finished = new Map<string, number>()
  const tally = (kind: string, status: string) => finished.set(`${kind} ${status}`, (finished.get(`${kind} ${status}`) ?? 0) + 1)
  const iso = () => new Date(deps.now()).toISOString()

  async function run(connector: ConnectorRow, trigger: RunRow['trigger'], upload?: Uint8Array): Promise<RunRow> {
    if (running.has(connector.id)) throw new HttpError('CONFLICT', 'This connector is already running')
    running.add(connector.id)
    const row = deps.store.startRun(connector, trigger, iso())
    const counts: RunCounts = { created: 0, updated: 0, deleted: 0, unchanged: 0, failed: 0 }
    let error: string | null = null
    try {
      if (connector.kind === 'google_keep') keep(connector, upload as Uint8Array, counts)
      else await dav(connector, counts)
    } catch (err) {
      if (err instanceof HttpError && err.statusCode < 500) {
        deps.store.finishRun(row.id, connector.id, { ...counts, status: 'failed', finished_at: iso(), error: err.message })
        running.delete(connector.id)
        tally(connector.kind, 'failed')
        throw err
      }
      error = err instanceof Error ? err.message : String(err)
    }
    running.delete(connector.id)
    tally(connector.kind, error ? 'failed' : 'ok')
    return deps.store.finishRun(row.id, connector.id, { ...counts, status: error ? 'failed' : 'ok', finished_at: iso(), error })
  }

  function keep(connector: ConnectorRow, upload: Uint8Array, counts: RunCounts) {
    let archive
    try {
      archive = readKeepArchive(upload)
    } catch (err) {
      throw new HttpError('VALIDATION_ERROR', (err as Error).message, { field: 'file', constraint: 'format' })
    }
    counts.failed += archive.failed.length
    const sink = recordSink(deps.records, deps.store, connector, 'notes', counts)
    const seen = new Set<string>()
    for (const note of archive.notes) {
      if (note.trashed) continue
      seen.add(note.href)
      if (sink.known(note.href) && note.etag !== null && sink.etag(note.href) === note.etag) {
        counts.unchanged++
        continue
      }
      putSafely(sink, counts, () => sink.put(note.href, '', note.etag, [note.part]))
    }
    // A Takeout is the whole of Keep: a note no longer in it (or in Keep's trash) was deleted there.
    for (const href of sink.hrefs()) if (!seen.has(href)) sink.remove(href)
  }

  async function dav(connector: ConnectorRow, counts: RunCounts) {
    const kind = connector.kind as 'carddav' | 'caldav'
    const client = davClient({
      kind,
      username: connector.username,
      password: connector.password_enc ? deps.decrypt(connector.password_enc) : null,
      policy: { allowPrivate: deps.allowPrivate || connector.allow_private === 1 },
    })
    const sink = recordSink(deps.records, deps.store, connector, kind === 'carddav' ? 'contacts' : 'events', counts)
    const collections = await client.discover(String(connector.url))
    if (collections.length === 0) throw new DavError(`no ${kind === 'carddav' ? 'address book' : 'calendar'} found at this URL`)

    for (const collection of collections) {
      let changed: Member[]
      let removed: string[] = []
      let full = true
      let token: string | null = null
      if (collection.syncCollection) {
        const stored = deps.store.token(connector.id, collection.href)
        let answer
        try {
          answer = await client.syncCollection(collection.href, stored ?? '')
          full = !stored
        } catch (err) {
          if (!(err instanceof InvalidSyncToken)) throw err
          answer = await client.syncCollection(collection.href, '')
        }
        ;({ changed, removed, token } = answer)
      } else {
        changed = await client.members(collection.href)
      }
      // A full listing names every member: what we linked and it no longer names was deleted remotely.
      if (full) {
        const listed = new Set(changed.map((m) => m.href))
        removed = [...removed, ...sink.hrefsIn(collection.href).filter((h) => !listed.has(h))]
      }
      for (const href of removed) sink.remove(href)
      const fresh = changed.filter((m) => !(m.etag && sink.known(m.href) && sink.etag(m.href) === m.etag))
      counts.unchanged += changed.length - fresh.length
      const bodies = await client.fetchAll(
        collection.href,
        fresh.map((m) => m.href),
      )
      for (const member of fresh) {
        const object = bodies.get(member.href)
        if (!object) {
          sink.remove(member.href)
          continue
        }
        putSafely(sink, counts, () =>
          sink.put(member.href, collection.href, member.etag ?? object.etag, parts(kind, object.body, deps.records, collection.name)),
        )
      }
      deps.store.putToken(connector.id, collection.href, token)
    }
    // A collection that disappeared (or is no longer shared): its records go too.
    const live = new Set(collections.map((c) => c.href))
    for (const link of deps.store.links(connector.id)) if (!live.has(link.collection)) sink.remove(link.href)
    deps.store.keepTokens(
      connector.id,
      collections.map((c) => c.href),
    )
  }

  return {
    run,
    isRunning: (id: string) => running.has(id),
    finished: () => [...finished].map(([key, value]) => ({ labels: { kind: key.split(' ')[0], status: key.split(' ')[1] }, value })),
  }
}

function putSafely(sink: RecordSink, counts: RunCounts, put: () => void) {
  try {
    put()
  } catch (err) {
    // One bad remote object (a vCard the records engine refuses) must not stop the others.
    if (err instanceof HttpError || err instanceof EntryError) counts.failed++
    else throw err
  }
}

/** The records one remote object holds: a vCard, or a VCALENDAR's events (overrides by their occurrence start). */
function parts(kind: 'carddav' | 'caldav', body: string, records: RecordsPluginService, calendar: string | null): RemotePart[] {
  const parsed = kind === 'carddav' ? parseVCards(body) : parseICalendar(body, { zone: records.service.timezone })
  const entries = kind === 'carddav' ? parsed.entries.slice(0, 1) : parsed.entries
  if (entries.length === 0) throw new EntryError(parsed.failed[0]?.error ?? 'no entry in the remote object')
  const out: RemotePart[] = []
  for (const e of entries) {
    const record = e.record as unknown as Record<string, unknown>
    // An event that names no calendar of its own belongs to its collection.
    if (kind === 'caldav' && calendar && record.calendar_name === 'default') record.calendar_name = calendar.slice(0, 200)
    const part = typeof record.series_uid === 'string' ? String(record.occurrence_start) : ''
    // Two main entries in one object (not allowed by RFC 4791, seen in the wild): the first wins.
    if (out.some((p) => p.part === part)) continue
    out.push({ part, record, properties: e.properties })
  }
  return out
}
