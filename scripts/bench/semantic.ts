/**
 * Semantic bench: search latency at 100,000 notes with
 * 384-dimension vectors, sqlite-vec's vec0 KNN beside the plain JS
 * scan, on the same table; then indexing throughput: a real daemon reindexing
 * 5,000 notes through a local embeddings stub (the OpenAI wire format,
 * bag-of-words vectors), timed from POST /ai/reindex to a ready index.
 * This machine is shared (2 cores, other work running): the figures are indicative.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compileCheck } from '../../core/validation.js'
import { migrate, readMigrations } from '../../core/db/migrate.js'
import { databasePath, openDatabase } from '../../core/db/sqlite.js'
import { loadVectorExtension, vectorStore, type VectorStore } from '../../plugins/ai/semantic/store.js'
import { startProviderStub } from '../../plugins/ai/test/provider-stub.js'
import { createRecordsService } from '../../plugins/records/service.js'
import { json, ownerWithKey, startDaemon } from './harness.js'

const VECTORS = 100_000
const DIMS = 384
/** Queries timed per path (the scan gets fewer: each reads every vector in JS). */
const QUERIES = { 'sqlite-vec': 10, scan: 5 } as const
const INDEXED_NOTES = 5_000

function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32 - 0.5
  }
}

const percentile = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b)
  return Math.round((sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number) * 10) / 10
}

function searchLatency(store: VectorStore, queries: number[][]): number[] {
  return queries.map((q) => {
    const started = performance.now()
    store.nearest('bench-user', 'bench', q, ['notes'], 20)
    return performance.now() - started
  })
}

async function searchBench(out: Record<string, number | string>) {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-semantic-'))
  const db = openDatabase(join(dir, 'bench.db'))
  try {
    migrate(db, 'ai', readMigrations(new URL('../../plugins/ai/migrations/', import.meta.url)))
    const mode = loadVectorExtension(db, 'auto', (m) => console.log(m))
    const random = rng(7)
    const vector = () => Array.from({ length: DIMS }, random)
    const at = new Date().toISOString()
    const fast = vectorStore(db, mode)
    const started = performance.now()
    for (let i = 0; i < VECTORS; i += 10_000) {
      const rows = Array.from({ length: 10_000 }, (_, j) => ({ type: 'notes' as const, id: `note-${i + j}`, hash: '', vector: vector() }))
      fast.upsert('bench-user', 'bench', rows, at)
    }
    out['store 100k vectors (384 dims) s'] = Math.round((performance.now() - started) / 100) / 10
    // As the daemon runs most of the time: the vectors in the main file, not the WAL.
    db.pragma('wal_checkpoint(TRUNCATE)')
    const queries = Array.from({ length: QUERIES['sqlite-vec'] }, vector)
    const scan = vectorStore(db, 'scan')
    searchLatency(scan, queries.slice(0, 2)) // warm the page cache
    const agree = queries.slice(0, 5).every((q) => {
      const a = fast.nearest('bench-user', 'bench', q, ['notes'], 20).map((h) => h.id)
      const b = scan.nearest('bench-user', 'bench', q, ['notes'], 20).map((h) => h.id)
      return a.join() === b.join()
    })
    out['same top 20 on both paths (vec0 and scan)'] = agree ? 'yes' : 'NO'
    const paths: Array<['sqlite-vec' | 'scan', VectorStore]> =
      mode === 'sqlite-vec'
        ? [
            ['sqlite-vec', fast],
            ['scan', scan],
          ]
        : [['scan', scan]]
    for (const [name, store] of paths) {
      const samples = searchLatency(store, queries.slice(0, QUERIES[name]))
      out[`${name}: search p50 ms`] = percentile(samples, 50)
      out[`${name}: search p99 ms (${QUERIES[name]} queries)`] = percentile(samples, 99)
    }
    if (mode !== 'sqlite-vec') out['sqlite-vec'] = 'did not load: only the scan was measured'
  } finally {
    db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function indexingBench(out: Record<string, number | string>) {
  const cleanups: Array<() => unknown> = []
  const stub = await startProviderStub({ teardown: (fn) => cleanups.push(fn) })
  const daemon = await startDaemon({ HEARTH_TIER: 'pro', HEARTH_AI_COMPATIBLE_URL: stub.url })
  try {
    const { token, userId } = await ownerWithKey(daemon.url, 'system')
    const db = openDatabase(databasePath(daemon.dataDir))
    const service = createRecordsService({ validator: compileCheck, db, events: { emit: () => undefined as never }, now: Date.now })
    const random = rng(11)
    const words = ['garden', 'invoice', 'trip', 'recipe', 'meeting', 'bicycle', 'school', 'doctor', 'music', 'taxes', 'holiday', 'car']
    const word = () => words[Math.floor((random() + 0.5) * words.length)] as string
    service.importMany(
      userId,
      'notes',
      Array.from({ length: INDEXED_NOTES }, () => ({ title: `${word()} ${word()}`, content: Array.from({ length: 60 }, word).join(' ') })),
      { emit: false },
    )
    db.close()
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const api = `${daemon.url}/api/v1`
    await json(
      await fetch(`${api}/ai/settings`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ provider: 'openai-compatible', model: 'chat', embedding_model: 'bow-384', api_key: 'sk-bench' }),
      }),
    )
    const started = performance.now()
    await json(await fetch(`${api}/ai/reindex`, { method: 'POST', headers: { authorization: headers.authorization } }))
    let state: { status: string; indexed: number }
    do {
      await new Promise((r) => setTimeout(r, 50))
      state = await json(await fetch(`${api}/ai/index`, { headers }))
    } while (state.status === 'running')
    const seconds = (performance.now() - started) / 1000
    out[`reindex ${INDEXED_NOTES} notes s`] = Math.round(seconds * 10) / 10
    out['indexing throughput notes/s'] = Math.round(state.indexed / seconds)
    out['embeddings calls (batches of 64)'] = stub.calls.filter((c) => c.path === '/v1/embeddings').length
  } finally {
    await daemon.stop()
    rmSync(daemon.dataDir, { recursive: true, force: true })
    for (const fn of cleanups) await fn()
  }
}

export async function benchSemantic(): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = { machine: 'shared (2 cores, other work running): indicative figures' }
  await searchBench(out)
  await indexingBench(out)
  return out
}
