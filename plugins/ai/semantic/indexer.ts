/**
 * Keeps each user's embeddings current.
 *
 * Record events only put the record's key in an in-memory queue (nothing in
 * the writer's path waits for a provider); after `indexDelayMs` the queue is
 * drained in batches, one embeddings call per batch. A failed batch is retried
 * with doubling delays; after `maxAttempts` its changes are counted as failed
 * and left for the next reindex. Only users whose index exists (built once by
 * POST /ai/reindex) are followed: embeddings cost the user's provider.
 */
import type Database from 'better-sqlite3'
import type { FastifyBaseLogger } from 'fastify'
import { type HearthEvent, preparedOnUse } from '../../../core/plugin-api.js'
import { nextTurn } from '../../../lib/paced-stream.js'
import type { ApiRecord, RecordsService } from '../../records/public.js'
import type { AiConfig } from '../config.js'
import type { SettingsStore } from '../settings.js'
import { hashOf, SEMANTIC_TYPES, type SemanticType, textOf } from './text.js'
import type { EmbeddingRow, VectorStore } from './store.js'

export type IndexStatus = 'empty' | 'running' | 'ready' | 'failed'

export interface IndexState {
  status: IndexStatus
  /** Records the running (or last) reindex covers. */
  total: number
  done: number
  failed: number
  /** Changes waiting for the live indexer. */
  pending: number
  /** Embeddings stored for the current embedding model. */
  indexed: number
  model: string | null
  dimensions: number | null
  vector_search: 'sqlite-vec' | 'scan'
  error: string | null
  started_at: string | null
  finished_at: string | null
}

interface StateRow {
  status: IndexStatus
  total: number
  done: number
  failed: number
  model: string | null
  dims: number | null
  error: string | null
  started_at: string | null
  finished_at: string | null
}

interface Pending {
  type: SemanticType
  id: string
  attempts: number
}

export interface Indexer {
  state(userId: string): IndexState
  /** Starts a full reindex in the background (a running one is left to finish); returns the state. */
  reindex(userId: string): IndexState
  /** Whether the user's index exists (reindexed at least once). */
  exists(userId: string): boolean
  /** Settings changed: embeddings of the old model are useless; rebuild when an index exists. */
  settingsChanged(userId: string): void
  /** Settings removed: drop the user's index. */
  forget(userId: string): void
  /** Resolves when nothing is queued or running (tests, close). */
  idle(): Promise<void>
  close(): void
}

const TYPE_OF_EVENT: Record<string, SemanticType> = { note: 'notes', contact: 'contacts', event: 'events', task: 'tasks' }

export interface IndexerDeps {
  db: Database.Database
  records: RecordsService
  settings: SettingsStore
  vectors: VectorStore
  config: AiConfig
  log: FastifyBaseLogger
  now: () => number
  on(pattern: string, fn: (e: HearthEvent) => void): void
}

export function createIndexer(d: IndexerDeps): Indexer {
  const q = preparedOnUse(d.db, {
    getState: () => d.db.prepare<[string], StateRow>('SELECT * FROM ai_index_state WHERE user_id = ?'),
    putState: () =>
      d.db.prepare(
        `INSERT INTO ai_index_state (user_id, status, total, done, failed, model, dims, error, started_at, finished_at)
     VALUES (@user_id, @status, @total, @done, @failed, @model, @dims, @error, @started_at, @finished_at)
     ON CONFLICT (user_id) DO UPDATE SET status = excluded.status, total = excluded.total, done = excluded.done,
       failed = excluded.failed, model = excluded.model, dims = excluded.dims, error = excluded.error,
       started_at = excluded.started_at, finished_at = excluded.finished_at`,
      ),
  })
  const iso = () => new Date(d.now()).toISOString()
  const queues = new Map<string, Map<string, Pending>>()
  const running = new Map<string, Promise<void>>()
  const timers = new Set<NodeJS.Timeout>()
  const flushing = new Set<Promise<void>>()
  let closed = false
  /** Users whose running reindex must start over (settings changed) or stop (settings removed). */
  const rerun = new Set<string>()
  const cancelled = new Set<string>()

  const save = (userId: string, patch: Partial<StateRow>) => {
    if (cancelled.has(userId)) return
    const before = q.getState.get(userId) ?? {
      status: 'empty' as IndexStatus,
      total: 0,
      done: 0,
      failed: 0,
      model: null,
      dims: null,
      error: null,
      started_at: null,
      finished_at: null,
    }
    q.putState.run({ user_id: userId, ...before, ...patch })
  }

  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer)
      if (!closed) fn()
    }, ms)
    timers.add(timer)
  }

  /** Embeds and stores a batch of records (already fetched); returns how many were embedded. */
  const embedRecords = async (userId: string, items: Array<{ type: SemanticType; record: ApiRecord }>) => {
    const client = d.settings.client(userId)
    if (!client) return 0
    const model = client.embeddingModel
    const known = d.vectors.hashes(userId, model)
    const todo = items
      .map((it) => ({ type: it.type, id: String(it.record.id), text: textOf(it.type, it.record) }))
      .map((it) => ({ ...it, hash: hashOf(model, it.text) }))
      .filter((it) => known.get(`${it.type}:${it.id}`) !== it.hash)
    for (let i = 0; i < todo.length; i += d.config.batchSize) {
      const batch = todo.slice(i, i + d.config.batchSize)
      const vectors = await client.embed(batch.map((b) => b.text || ' '))
      if (cancelled.has(userId)) return 0
      const rows: EmbeddingRow[] = batch.map((b, j) => ({ type: b.type, id: b.id, hash: b.hash, vector: vectors[j] }))
      d.vectors.upsert(userId, model, rows, iso())
      if (vectors[0]) save(userId, { model, dims: vectors[0].length })
    }
    return todo.length
  }

  const fetchRecord = (userId: string, type: SemanticType, id: string) => {
    try {
      return d.records.get(userId, type, id)
    } catch {
      return null
    }
  }

  /** Users whose batch is with the provider: one batch per user at a time (it reschedules what is left). */
  const inFlight = new Set<string>()

  const flush = async (userId: string) => {
    const queue = queues.get(userId)
    if (!queue || queue.size === 0 || running.has(userId) || inFlight.has(userId)) return
    inFlight.add(userId)
    try {
      await flushBatch(userId, queue)
    } finally {
      inFlight.delete(userId)
    }
  }

  const flushBatch = async (userId: string, queue: Map<string, Pending>) => {
    const batch = [...queue.values()].slice(0, d.config.batchSize)
    const present: Array<{ type: SemanticType; record: ApiRecord }> = []
    for (const p of batch) {
      const record = fetchRecord(userId, p.type, p.id)
      if (record && !record.deleted_at) present.push({ type: p.type, record })
      else d.vectors.remove(userId, p.type, p.id)
    }
    try {
      await embedRecords(userId, present)
      for (const p of batch) if (queue.get(`${p.type}:${p.id}`) === p) queue.delete(`${p.type}:${p.id}`)
      if (queue.size > 0) schedule(userId, 0)
    } catch (err) {
      const attempts = Math.max(...batch.map((p) => ++p.attempts))
      if (attempts >= d.config.maxAttempts) {
        for (const p of batch) queue.delete(`${p.type}:${p.id}`)
        const st = q.getState.get(userId)
        save(userId, { failed: (st?.failed ?? 0) + batch.length, error: (err as Error).message })
        d.log.warn({ user: userId, changes: batch.length, err: (err as Error).message }, 'semantic index: changes dropped after retries')
        if (queue.size > 0) schedule(userId, 0)
      } else {
        d.log.info({ user: userId, attempts, err: (err as Error).message }, 'semantic index: provider failed, will retry')
        schedule(userId, d.config.retryDelayMs * 2 ** (attempts - 1))
      }
    }
  }

  const scheduled = new Set<string>()
  const schedule = (userId: string, ms: number) => {
    if (scheduled.has(userId)) return
    scheduled.add(userId)
    later(ms, () => {
      scheduled.delete(userId)
      const p = flush(userId).catch((err) => d.log.error({ err }, 'semantic index flush failed'))
      flushing.add(p)
      void p.finally(() => flushing.delete(p))
    })
  }

  /** One check of the user per event (an import's ids share it), not one pair of queries per id. */
  const enqueue = (userId: string, type: SemanticType, ids: readonly string[]) => {
    if (ids.length === 0 || !q.getState.get(userId) || !d.settings.has(userId)) return
    let queue = queues.get(userId)
    if (!queue) queues.set(userId, (queue = new Map()))
    for (const id of ids) queue.set(`${type}:${id}`, { type, id, attempts: 0 })
    schedule(userId, d.config.indexDelayMs)
  }

  for (const prefix of Object.keys(TYPE_OF_EVENT)) {
    d.on(`${prefix}.*`, (e) => {
      if (!e.userId) return
      const type = TYPE_OF_EVENT[prefix]
      const data = e.data as { ids?: string[]; ids_truncated?: boolean; id?: string } | null
      if (e.type.endsWith('.imported')) {
        if (data?.ids_truncated && q.getState.get(e.userId)) reindex(e.userId)
        else enqueue(e.userId, type, data?.ids ?? [])
        return
      }
      const id = e.id ?? data?.id
      if (!id) return
      // Everyone who reads the record (its owner, the members its collection is shared with) searches it in their own index.
      const readers = data && typeof data === 'object' ? d.records.readers(type, { ...data, owner_id: e.userId }) : [e.userId]
      for (const reader of readers) enqueue(reader, type, [id])
    })
  }
  // A collection shared with a member, or no longer: their index is brought to what they may read (unchanged records are not embedded again).
  d.on('share.*', (e) => {
    const share = e.data as { with_user_id?: string } | null
    if (e.userId && e.userId === share?.with_user_id && q.getState.get(e.userId)) reindex(e.userId)
  })

  const runReindex = async (userId: string) => {
    // The records are read a batch at a time, twice: first for their ids (the vectors of records
    // gone are pruned, the total is known), then to embed them; never all of them at once.
    const keys = new Set<string>()
    for (const type of SEMANTIC_TYPES) {
      for (const batch of d.records.batches(userId, type, { rows: 256 })) {
        for (const record of batch) keys.add(`${type}:${String(record.id)}`)
        await nextTurn()
      }
    }
    save(userId, { status: 'running', total: keys.size, done: 0, failed: 0, error: null, started_at: iso(), finished_at: null })
    const client = d.settings.client(userId)
    if (!client) {
      save(userId, { status: 'failed', error: 'no AI settings', finished_at: iso() })
      return
    }
    d.vectors.prune(userId, client.embeddingModel, keys)
    let done = 0
    const step = d.config.batchSize * 4
    try {
      embedding: for (const type of SEMANTIC_TYPES) {
        for (const batch of d.records.batches(userId, type, { rows: step })) {
          if (closed || cancelled.has(userId)) break embedding
          await embedRecords(
            userId,
            batch.map((record) => ({ type, record })),
          )
          done = Math.min(keys.size, done + batch.length)
          save(userId, { done })
        }
      }
      save(userId, { status: 'ready', finished_at: iso() })
    } catch (err) {
      save(userId, { status: 'failed', failed: keys.size - done, error: (err as Error).message, finished_at: iso() })
      d.log.warn({ user: userId, err: (err as Error).message }, 'semantic reindex failed')
    }
  }

  const reindex = (userId: string): IndexState => {
    if (!running.has(userId)) {
      save(userId, { status: 'running', done: 0, failed: 0, error: null, started_at: iso(), finished_at: null })
      const p = runReindex(userId)
        .catch((err) => d.log.error({ err }, 'semantic reindex crashed'))
        .finally(() => {
          running.delete(userId)
          cancelled.delete(userId)
          if (rerun.delete(userId) && q.getState.get(userId)) reindex(userId)
          else if (queues.get(userId)?.size) schedule(userId, 0)
        })
      running.set(userId, p)
    }
    return state(userId)
  }

  const state = (userId: string): IndexState => {
    const row = q.getState.get(userId)
    const model = d.settings.view(userId).embedding_model ?? row?.model ?? null
    return {
      status: row?.status ?? 'empty',
      total: row?.total ?? 0,
      done: row?.done ?? 0,
      failed: row?.failed ?? 0,
      pending: queues.get(userId)?.size ?? 0,
      indexed: model ? d.vectors.count(userId, model) : 0,
      model,
      dimensions: row?.dims ?? null,
      vector_search: d.vectors.mode,
      error: row?.error ?? null,
      started_at: row?.started_at ?? null,
      finished_at: row?.finished_at ?? null,
    }
  }

  return {
    state,
    reindex,
    exists: (userId) => q.getState.get(userId) !== undefined,
    settingsChanged(userId) {
      if (running.has(userId)) rerun.add(userId)
      else if (q.getState.get(userId)) reindex(userId)
    },
    forget(userId) {
      if (running.has(userId)) cancelled.add(userId)
      rerun.delete(userId)
      queues.delete(userId)
      d.vectors.removeUser(userId)
      d.db.prepare('DELETE FROM ai_index_state WHERE user_id = ?').run(userId)
    },
    async idle() {
      const queued = () => !closed && [...queues.values()].some((q) => q.size > 0)
      while (running.size || flushing.size || queued()) {
        await Promise.all([...running.values(), ...flushing])
        if (queued()) await new Promise((r) => setTimeout(r, 20))
      }
    },
    close() {
      closed = true
      for (const t of timers) clearTimeout(t)
      timers.clear()
    },
  }
}
