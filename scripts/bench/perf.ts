/**
 * Issue 11's table from one run, as a client sees it: the daemon started the
 * way `npm start` starts it, in its own process; load from a separate process
 * (wrk, keep-alive) with an agent API key on the real routes; a bare Fastify
 * server answering the same note JSON, loaded in the same run, alternating
 * A B A B. Notes are seeded straight through SQLite beside the running daemon.
 *
 *   npm run bench -- perf                      100,000 notes
 *   HEARTH_BENCH_NOTES=1000000 npm run bench -- perf
 */
import { randomUUID } from 'node:crypto'
import { mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { databasePath, openDatabase } from '../../core/db/sqlite.js'
import { compileCheck } from '../../core/validation.js'
import { createRecordsService } from '../../plugins/records/service.js'
import { median, ownerWithKey, ROOT, rssMb, startBareSqlite, startDaemon, startScript, timeRuns, withCpu } from './harness.js'
import { loadGenerator, medianRps, type Shot, shoot } from './load.js'
import { rng, vocabulary, WORD } from './records.js'

const NOTES = Number(process.env.HEARTH_BENCH_NOTES ?? 100_000)
const ROUNDS = 7
const SECONDS = 2
const RATE_LIMIT = '1000000000'

/**
 * The fast path: plain INSERTs in transactions of 10,000 (the FTS trigger
 * runs as for any write), deterministic text, ~100 words a note, one tag,
 * 2% pinned; timestamps one second apart so orderings are stable.
 */
export function seedNotes(file: string, userId: string, count: number): { seconds: number; ids: string[] } {
  const random = rng(42)
  const vocab = vocabulary(random)
  const word = () => vocab[Math.floor(vocab.length * random() ** 3)] as string
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ')
  const db = openDatabase(file)
  const insert = db.prepare(
    `INSERT INTO notes (id, user_id, title, content, content_format, tags, pinned, archived, source, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'markdown', ?, ?, 0, 'local', ?, ?)`,
  )
  const base = Date.parse('2025-01-01T00:00:00Z')
  const ids: string[] = []
  const started = performance.now()
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const id = randomUUID()
      if (i % 100 === 0) ids.push(id)
      const at = new Date(base + i * 1000).toISOString()
      const content = `${sentence(40)}${i % 100 === 0 ? ` ${WORD} ` : ' '}${sentence(60)}`
      insert.run(id, userId, sentence(4), content, JSON.stringify([vocab[i % 20]]), i % 50 === 0 ? 1 : 0, at, at)
    }
  })
  for (let i = 0; i < count; i += 10_000) batch(i, Math.min(count, i + 10_000))
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  return { seconds: (performance.now() - started) / 1000, ids }
}

/**
 * SQLite alone on this machine: the statement the records store runs for a
 * create (FTS trigger included), same pragmas, one transaction per note and
 * then 16 per transaction (what group commit does with 16 connections).
 */
export function sqliteCreates(file: string, userId: string, seconds = 2): { perTx1: number; perTx16: number } {
  const db = openDatabase(file)
  const insert = db.prepare(
    `INSERT INTO notes (id, user_id, title, content, content_format, tags, pinned, archived, custom_fields, source, created_at, updated_at, deleted_at)
     VALUES (@id, @user_id, @title, @content, @content_format, @tags, @pinned, @archived, @custom_fields, @source, @created_at, @updated_at, @deleted_at)`,
  )
  const note = () => {
    const at = new Date().toISOString()
    return {
      id: randomUUID(),
      user_id: userId,
      title: 'Bench',
      content: '# Bench\nA note written under load with a few words of text.',
      content_format: 'markdown',
      tags: '["bench"]',
      pinned: 0,
      archived: 0,
      custom_fields: null,
      source: 'local',
      created_at: at,
      updated_at: at,
      deleted_at: null,
    }
  }
  const rate = (perTx: number) => {
    const many = db.transaction(() => {
      for (let i = 0; i < perTx; i++) insert.run(note())
    })
    let n = 0
    const started = performance.now()
    while (performance.now() - started < seconds * 1000) {
      if (perTx === 1) insert.run(note())
      else many()
      n += perTx
    }
    return Math.round(n / ((performance.now() - started) / 1000))
  }
  try {
    return { perTx1: rate(1), perTx16: rate(16) }
  } finally {
    db.close()
  }
}

/**
 * The list and search queries themselves, in-process through the records service with its
 * list cache off (what the first listing after a write pays): p50/p99 of 50 runs, in ms.
 */
function queryTimes(file: string, userId: string) {
  const db = openDatabase(file)
  const service = createRecordsService({
    validator: compileCheck,
    db,
    events: { emit: () => undefined as never },
    now: Date.now,
    listCache: false,
    recordCacheBytes: 0,
  })
  const timed = (fn: () => unknown, runs = 50) => {
    const at = timeRuns(fn, runs)
    return { p50: at(0.5), p99: at(0.99) }
  }
  const middle = Math.floor(countNotes(file, userId) / 2)
  const anchor = service.list(userId, 'notes', { limit: 1, offset: middle - 1 }).items[0]?.id as string
  try {
    return {
      list: timed(() => service.list(userId, 'notes', { limit: 20 })),
      search: timed(() => service.list(userId, 'notes', { search: WORD, limit: 20 })),
      // The middle of the list by offset, and the same page by keyset (after = the item before it).
      deepOffset: timed(() => service.list(userId, 'notes', { limit: 20, offset: middle }), 10),
      deepAfter: timed(() => service.list(userId, 'notes', { limit: 20, after: anchor })),
    }
  } finally {
    db.close()
  }
}

/**
 * A listing as the client sees it right after its own write: one connection, a POST (not timed)
 * then the GET (timed, body read), `runs` times. Every write empties the user's list cache, so
 * each GET pays what is not cached (totals the counters cannot answer, the page query), unlike a
 * run of GETs alone, where all but the first are cache hits. p50/p99 in ms.
 */
async function afterWrites(api: string, headers: Record<string, string>, path: string, runs: number) {
  const samples: number[] = []
  const body = JSON.stringify({ content: 'Written before a listing.', tags: ['bench'] })
  for (let i = 0; i < runs; i++) {
    const wrote = await fetch(`${api}/notes`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })
    await wrote.arrayBuffer()
    if (wrote.status !== 201) throw new Error(`POST /notes answered ${wrote.status}`)
    const started = performance.now()
    const res = await fetch(`${api}${path}`, { headers })
    await res.arrayBuffer()
    samples.push(performance.now() - started)
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => round(samples[Math.min(runs - 1, Math.ceil(q * runs) - 1)] as number)
  return { p50: at(0.5), p99: at(0.99) }
}

function countNotes(file: string, userId: string): number {
  const db = openDatabase(file)
  try {
    return db.prepare('SELECT count(*) FROM notes WHERE user_id = ?').pluck().get(userId) as number
  } finally {
    db.close()
  }
}

function sampleIds(file: string, userId: string): string[] {
  const db = openDatabase(file)
  try {
    return db.prepare('SELECT id FROM notes WHERE user_id = ? AND seq % 100 = 0 ORDER BY seq').pluck().all(userId) as string[]
  } finally {
    db.close()
  }
}

const fileBytes = (path: string) => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}
/** User + system CPU ms a process has used (Linux /proc, clock ticks of 10 ms). */
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

export async function benchPerf(): Promise<Record<string, number | string>> {
  const generator = await loadGenerator()
  console.log(`HEARTH_RATE_LIMIT=${RATE_LIMIT} set for the daemon (the default 6,000/min per token would stop a load test of one key)`)
  console.log(`load: ${generator}, keep-alive, separate process; ${ROUNDS} alternating rounds of ${SECONDS} s; ${NOTES} notes`)
  const env = { HEARTH_RATE_LIMIT: RATE_LIMIT }

  // Start: spawn → first 200 of /api/v1/health. The first start creates the data folder, secrets
  // and schema; the figure that counts is a restart of that folder (median of 5), as an appliance boots.
  const first = await startDaemon(env)
  const firstStart = first.startupMs
  await first.stop()
  const starts: number[] = []
  const startCpu: number[] = []
  for (let i = 0; i < 5; i++) {
    const d = await startDaemon({ ...env, HEARTH_DATA_DIR: first.dataDir })
    starts.push(d.startupMs)
    startCpu.push(d.startupCpuMs)
    await d.stop()
  }

  // HEARTH_BENCH_DATA_DIR keeps the seeded folder between runs (seeding 1,000,000 notes takes minutes).
  const kept = process.env.HEARTH_BENCH_DATA_DIR
  if (kept) mkdirSync(kept, { recursive: true })
  const daemon = await startDaemon(kept ? { ...env, HEARTH_DATA_DIR: kept } : env)
  const out: Record<string, number | string> = {}
  let bare: Awaited<ReturnType<typeof startScript>> | undefined
  try {
    // Idle RSS 2 s after start (start-up housekeeping still under way) and 12 s after (V8's memory reducer has
    // run after the daemon's one GC): the 12 s figure is the idle one; bare Fastify is sampled the same way.
    await new Promise((r) => setTimeout(r, 2000))
    const idleRss = await rssMb(daemon.pid)
    await new Promise((r) => setTimeout(r, 10_000))
    const idleRssLater = await rssMb(daemon.pid)
    const { key, userId } = await ownerWithKey(daemon.url, 'agent')
    const headers = { authorization: `Bearer ${key}` }

    const file = databasePath(daemon.dataDir)
    const have = countNotes(file, userId)
    const before = fileBytes(file)
    const seeded = have >= NOTES ? { seconds: 0, ids: sampleIds(file, userId) } : seedNotes(file, userId, NOTES - have)
    // Growth per note seeded in this run; a kept folder already seeded: its whole size per note.
    const perThousandKiB =
      have >= NOTES ? fileBytes(file) / (have / 1000) / 1024 : (fileBytes(file) - before) / ((NOTES - have) / 1000) / 1024
    const noteId = seeded.ids[Math.floor(seeded.ids.length / 2)] as string
    const queries = queryTimes(file, userId)

    const api = `${daemon.url}/api/v1`
    // After a long seed the server may have closed the idle kept-alive socket just as it is reused: ask again once.
    const once = (url: string) => fetch(url, { headers }).catch(() => fetch(url, { headers }))
    const sample = await (await once(`${api}/notes/${noteId}`)).text()
    if (!sample.startsWith('{"data"')) throw new Error(`GET /notes/:id answered ${sample.slice(0, 200)}`)
    const hits = ((await (await once(`${api}/notes?search=${WORD}`)).json()) as { meta: { total: number } }).meta.total
    bare = await startScript(join(ROOT, 'dist/scripts/bench/bare-server.js'), [sample])
    const withSqlite = await startBareSqlite(sample)
    await new Promise((r) => setTimeout(r, 2000))
    const bareRss = await rssMb(Number(bare.pid))
    await new Promise((r) => setTimeout(r, 10_000))
    const bareRssLater = await rssMb(Number(bare.pid))
    const sqliteRssLater = await rssMb(withSqlite.pid)
    withSqlite.stop()

    const byIdUrl = `${api}/notes/${noteId}`
    const listUrl = `${api}/notes?limit=20`
    const bareUrl = `${bare.url}/bare`
    // Warm-up: JIT both servers and the SQLite page cache.
    await shoot(byIdUrl, { connections: 64, seconds: 2, headers })
    await shoot(listUrl, { connections: 64, seconds: 2, headers })
    await shoot(bareUrl, { connections: 64, seconds: 2 })
    const runs: Record<'bare' | 'byId' | 'list', Shot[]> = { bare: [], byId: [], list: [] }
    // CPU the server process used per request answered (harness.ts withCpu).
    const cpu: Record<'bare' | 'byId' | 'list', number[]> = { bare: [], byId: [], list: [] }
    const measured = async (which: 'bare' | 'byId' | 'list', pid: number, shot: () => Promise<Shot>) => {
      const result = await withCpu(pid, SECONDS, shot)
      cpu[which].push(result.cpuUs)
      return result
    }
    for (let r = 0; r < ROUNDS; r++) {
      runs.bare.push(await measured('bare', Number(bare.pid), () => shoot(bareUrl, { connections: 64, seconds: SECONDS })))
      runs.byId.push(await measured('byId', daemon.pid, () => shoot(byIdUrl, { connections: 64, seconds: SECONDS, headers })))
      runs.list.push(await measured('list', daemon.pid, () => shoot(listUrl, { connections: 64, seconds: SECONDS, headers })))
    }
    // A working set rather than one record: 1,000 different notes in turn (the record cache holds them all).
    const spread = seeded.ids.slice(0, 1000).map((id) => `/api/v1/notes/${id}`)
    const byIdSpread = await shoot(byIdUrl, { connections: 64, seconds: 5, headers, paths: spread })
    const writes = await shoot(`${api}/notes`, {
      connections: 16,
      seconds: 5,
      headers: { ...headers, 'content-type': 'application/json' },
      method: 'POST',
      body: JSON.stringify({ content: '# Bench\nA note written under load with a few words of text.', tags: ['bench'] }),
    })
    const alone = sqliteCreates(file, userId)
    const list1 = await shoot(listUrl, { connections: 1, seconds: 5, headers })
    const search1 = await shoot(`${api}/notes?search=${WORD}`, { connections: 1, seconds: 5, headers })
    const listAfterWrite = await afterWrites(api, headers, '/notes?limit=20', 200)
    const searchAfterWrite = await afterWrites(api, headers, `/notes?search=${WORD}`, 200)
    const [bareRps, byIdRps, listRps] = [medianRps(runs.bare), medianRps(runs.byId), medianRps(runs.list)]
    // Each round's ratio against the bare run just before it, then the median: a disturbed round moves one ratio, not all.
    const ratio = (rs: Shot[]) => round(median(rs.map((s, i) => s.rps / (runs.bare[i] as Shot).rps)))
    const errors = [...runs.bare, ...runs.byId, ...runs.list, byIdSpread, writes, list1, search1].reduce((sum, s) => sum + s.errors, 0)

    Object.assign(out, {
      'GET /notes/:id req/s (64 conn)': byIdRps,
      'bare Fastify same JSON req/s (64 conn)': bareRps,
      'GET /notes/:id vs bare (aim >= 0.7)': ratio(runs.byId),
      'server CPU us per request, median: bare | by-id | list': [cpu.bare, cpu.byId, cpu.list]
        .map((xs) => round(median(xs), 1))
        .join(' | '),
      [`GET /notes/:id over ${spread.length} different ids req/s, vs median bare`]: `${byIdSpread.rps}, ${round(byIdSpread.rps / bareRps)}`,
      'GET /notes?limit=20 req/s (64 conn)': listRps,
      'GET /notes?limit=20 vs bare by-id (aim >= 0.25)': ratio(runs.list),
      'POST /notes creates/s (16 conn, 5 s; aim >= 5,400)': writes.rps,
      'POST /notes p99 ms': writes.p99,
      'SQLite alone, same INSERT + FTS, 1 per tx /s': alone.perTx1,
      'SQLite alone, 16 per tx /s': alone.perTx16,
      'node start -> /health 200 ms, restart, median of 5 (aim < 250)': Math.round(median(starts)),
      'restart CPU ms used by then (user + system), median of 5': median(startCpu),
      'first start (creates data folder + schema) ms': Math.round(firstStart),
      'idle RSS MB 2 s / 12 s after start': `${idleRss} / ${idleRssLater}`,
      'bare Fastify idle RSS MB 2 s / 12 s after start': `${bareRss} / ${bareRssLater}`,
      'idle RSS vs bare, 2 s': round(idleRss / bareRss),
      'idle RSS vs bare, 12 s (aim <= 1.15)': round(idleRssLater / bareRssLater),
      'informative: bare Fastify + SQLite idle RSS MB 12 s; daemon vs it': `${sqliteRssLater}; ${round(idleRssLater / sqliteRssLater)}`,
      'GET /notes?limit=20 p99 ms, 1 conn, repeated: list cache hits (aim < 5)': list1.p99,
      [`GET /notes?search=${WORD} p99 ms, 1 conn, repeated, ${hits} hits (aim < 15)`]: search1.p99,
      'GET /notes?limit=20 p50 / p99 ms, 1 conn, each right after a POST (aim < 5)': `${listAfterWrite.p50} / ${listAfterWrite.p99}`,
      [`GET /notes?search=${WORD} p50 / p99 ms, 1 conn, each right after a POST (aim < 15)`]: `${searchAfterWrite.p50} / ${searchAfterWrite.p99}`,
      'list query in-process, no cache, p50 / p99 ms': `${queries.list.p50} / ${queries.list.p99}`,
      'search query in-process, no cache, p50 / p99 ms': `${queries.search.p50} / ${queries.search.p99}`,
      'list page in the middle in-process, offset vs after=<id>, p50 ms': `${queries.deepOffset.p50} vs ${queries.deepAfter.p50}`,
      'DB KiB per 1,000 notes (was 1,277)': Math.round(perThousandKiB),
      [`seed ${NOTES} notes via SQLite s`]: round(seeded.seconds, 1),
      'errors + non-2xx (all loads)': errors,
      'per-round req/s bare | by-id | list': [runs.bare, runs.byId, runs.list].map((rs) => rs.map((s) => s.rps).join('/')).join(' | '),
    })
  } finally {
    bare?.stop()
    await daemon.stop()
  }
  return out
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchPerf())
}
