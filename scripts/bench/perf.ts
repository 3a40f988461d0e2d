/**
 * `npm run bench -- perf`: what a household's clients meet, in one table, each figure beside a baseline
 * measured in the same run. The daemon is started the way `npm start` starts it, in its own process; load
 * comes from other processes (wrk, dnsperf) on loopback only, with API keys on the real routes.
 *
 * - reads: GET /notes/:id over 4,096 different ~1 KiB Markdown notes against bare Fastify answering the same
 *   JSON from memory, alternating rounds; GET /notes?limit=20 against that bare figure; one id over and
 *   over, labelled as the record cache's best case;
 * - creates of such notes (16 connections) against better-sqlite3 alone writing the same rows through the
 *   same FTS5 triggers, 16 per transaction (group commit's batching with 16 requests in flight);
 * - list and search latency with one connection at HEARTH_BENCH_NOTES (100,000) and HEARTH_BENCH_LARGE
 *   (1,000,000; 0 leaves that part out) notes;
 * - a household at once: HEARTH_BENCH_USERS users (4), each with a key and a WebSocket (scripts/bench/perf-mixed.ts);
 * - start (spawn to the first 200 of /health on an existing data folder) and memory at idle, under load and
 *   60 s after it, private (RssAnon) beside RSS, against bare Fastify's;
 * - DNS against Knot with one UDP worker (scripts/bench/dns.ts) and record writes into a 10,000-record zone.
 *
 * Every loop is bounded in count and time. HEARTH_BENCH_DATA_DIR keeps the seeded folder between runs.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { databasePath, openDatabase } from '../../core/db/sqlite.js'
import { benchDns } from './dns.js'
import { benchDnsWrites } from './dns-writes.js'
import { cpuMs, type Daemon, median, memoryMb, ownerWithKey, ROOT, startDaemon, startScript, withCpu } from './harness.js'
import { loadGenerator, medianRps, type Shot, shoot } from './load.js'
import { createsLua, pathsLua } from './perf-lua.js'
import { inviteUsers, mixedLoad } from './perf-mixed.js'
import { seedNotes, sqliteCreates } from './perf-notes.js'
import { markdownTable, round, type Row } from './perf-table.js'
import { WORD } from './records.js'

const NOTES = Number(process.env.HEARTH_BENCH_NOTES ?? 100_000)
const LARGE = Number(process.env.HEARTH_BENCH_LARGE ?? 1_000_000)
const USERS = Number(process.env.HEARTH_BENCH_USERS ?? 4)
const SPREAD = 4096
const ROUNDS = 5
const SECONDS = 3
const RATE_LIMIT = '1000000000'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(' ')
/** Progress on stderr: the table alone goes to stdout. */
const step = (what: string) => console.error(`[perf ${new Date().toISOString().slice(11, 19)}, load ${load()}] ${what}`)

/** `count` ids of the user's notes, evenly spread over them. */
function spreadIds(file: string, userId: string, count: number): string[] {
  const db = openDatabase(file)
  try {
    const total = db.prepare('SELECT count(*) FROM notes WHERE user_id = ?').pluck().get(userId) as number
    const step = Math.max(1, Math.floor(total / count))
    return db
      .prepare('SELECT id FROM notes WHERE user_id = ? AND seq % ? = 0 ORDER BY seq LIMIT ?')
      .pluck()
      .all(userId, step, count) as string[]
  } finally {
    db.close()
  }
}

function countNotes(file: string, userId: string): number {
  const db = openDatabase(file)
  try {
    return db.prepare('SELECT count(*) FROM notes WHERE user_id = ?').pluck().get(userId) as number
  } finally {
    db.close()
  }
}

/**
 * One connection: `runs` times a POST (not timed) then the GET (timed, body read). Every write empties the
 * user's list cache, so each GET pays the query. p50/p99 in ms.
 */
async function afterWrites(api: string, headers: Record<string, string>, path: string, runs: number) {
  const samples: number[] = []
  const body = JSON.stringify({ content: 'Written before a listing.', tags: ['bench'] })
  for (let i = 0; i < runs; i++) {
    const wrote = await fetch(`${api}/notes`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })
    await wrote.arrayBuffer()
    const started = performance.now()
    const res = await fetch(`${api}${path}`, { headers })
    await res.arrayBuffer()
    samples.push(performance.now() - started)
    if (wrote.status !== 201 || res.status !== 200) throw new Error(`POST /notes ${wrote.status}, GET ${path} ${res.status}`)
  }
  samples.sort((a, b) => a - b)
  const at = (q: number) => round(samples[Math.min(runs - 1, Math.ceil(q * runs) - 1)] as number)
  return { p50: at(0.5), p99: at(0.99) }
}

/** List and search p99 with one connection: repeated, and each right after the client's own write. */
async function listLatency(api: string, headers: Record<string, string>) {
  const list = await shoot(`${api}/notes?limit=20`, { connections: 1, seconds: 4, headers })
  const search = await shoot(`${api}/notes?search=${WORD}&limit=20`, { connections: 1, seconds: 4, headers })
  const listAfter = await afterWrites(api, headers, '/notes?limit=20', 100)
  const searchAfter = await afterWrites(api, headers, `/notes?search=${WORD}&limit=20`, 100)
  return { list: list.p99, search: search.p99, listAfter: listAfter.p99, searchAfter: searchAfter.p99, errors: list.errors + search.errors }
}

/** Spawn → the first 200 of /health, `runs` times on one folder, for each entry in turn (A B A B): medians in ms. */
async function startTimes(dataDir: string, entries: Record<string, { entry?: string; env?: Record<string, string> }>, runs: number) {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(entries).map((k) => [k, []]))
  for (let i = 0; i < runs; i++)
    for (const [name, { entry, env }] of Object.entries(entries)) {
      const d = await startDaemon({ HEARTH_DATA_DIR: dataDir, ...env }, [], entry)
      times[name]?.push(d.startupMs)
      await d.stop()
    }
  return Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, Math.round(median(xs))]))
}

/** Bare Fastify's start: spawn → its port printed (it listens before printing). Median ms of `runs`. */
async function bareStart(runs: number): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    const bare = await startScript(join(ROOT, 'dist/scripts/bench/bare-server.js'), ['{"data":{"id":"x"}}'])
    times.push(performance.now() - started)
    bare.stop()
  }
  return Math.round(median(times))
}

export async function benchPerf(): Promise<Record<string, number | string>> {
  const rows: Row[] = []
  const notes: string[] = [`load average at the start: ${load()}`]
  const env = { HEARTH_RATE_LIMIT: RATE_LIMIT }
  console.log(`HEARTH_RATE_LIMIT=${RATE_LIMIT} for the daemon (the default 6,000/min per key would stop a load test)`)
  console.log(`load: ${await loadGenerator()}, keep-alive, separate process; ${NOTES} notes (${LARGE || 'no'} for the large folder)`)

  step('start times')
  // Start on an existing data folder: the first start creates it (and the compile cache fills on the second).
  const first = await startDaemon(env)
  const firstStart = Math.round(first.startupMs)
  await first.stop()
  const started = await startTimes(
    first.dataDir,
    {
      bundle: { env },
      unbundled: { env, entry: join(ROOT, 'dist/core/main.js') },
      'no compile cache': { env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' } },
    },
    5,
  )
  const bareStartMs = await bareStart(5)
  rmSync(first.dataDir, { recursive: true, force: true })

  const kept = process.env.HEARTH_BENCH_DATA_DIR
  if (kept) mkdirSync(kept, { recursive: true })
  const daemon: Daemon = await startDaemon(kept ? { ...env, HEARTH_DATA_DIR: kept } : env)
  const memory = () => memoryMb(daemon.pid)
  const scratch = mkdtempSync(join(tmpdir(), 'hearth-perf-'))
  const stops: (() => void)[] = []
  try {
    step('idle memory')
    // Idle: 12 s after start, both processes side by side.
    const bareIdle = await startScript(join(ROOT, 'dist/scripts/bench/bare-server.js'), ['{"data":{"id":"x"}}'])
    stops.push(bareIdle.stop)
    await sleep(12_000)
    const idle = memory()
    const bareMem = memoryMb(bareIdle.pid)
    bareIdle.stop()

    const { key, userId, token } = await ownerWithKey(daemon.url, 'agent')
    const headers = { authorization: `Bearer ${key}` }
    const api = `${daemon.url}/api/v1`
    const file = databasePath(daemon.dataDir)
    const have = countNotes(file, userId)
    const seeded = have < NOTES ? seedNotes(file, userId, NOTES - have, have) : { seconds: 0 }

    step(`reads over ${SPREAD} notes`)
    // Reads: the daemon's answers for 4,096 notes, which bare Fastify answers from memory.
    const ids = spreadIds(file, userId, SPREAD)
    const answers: Record<string, unknown> = {}
    // After the seed the server may close an idle kept-alive socket just as it is reused: ask again once.
    const get = (url: string) => fetch(url, { headers }).catch(() => fetch(url, { headers }))
    for (const id of ids) answers[id] = await (await get(`${api}/notes/${id}`)).json()
    const answersFile = join(scratch, 'answers.json')
    writeFileSync(answersFile, JSON.stringify(answers))
    const bare = await startScript(join(ROOT, 'dist/scripts/bench/bare-server.js'), [`@${answersFile}`])
    stops.push(bare.stop)
    const one = ids[Math.floor(ids.length / 2)] as string
    const byIdLua = pathsLua(ids.map((id) => `/api/v1/notes/${id}`))
    const bareLua = pathsLua(ids.map((id) => `/bare/${id}`))
    const targets = {
      bare: { pid: bare.pid, go: (s: number) => shoot(`${bare.url}/`, { connections: 64, seconds: s, lua: bareLua }) },
      byId: { pid: daemon.pid, go: (s: number) => shoot(`${daemon.url}/`, { connections: 64, seconds: s, headers, lua: byIdLua }) },
      list: { pid: daemon.pid, go: (s: number) => shoot(`${api}/notes?limit=20`, { connections: 64, seconds: s, headers }) },
      bareOne: { pid: bare.pid, go: (s: number) => shoot(`${bare.url}/bare/${one}`, { connections: 64, seconds: s }) },
      oneId: { pid: daemon.pid, go: (s: number) => shoot(`${api}/notes/${one}`, { connections: 64, seconds: s, headers }) },
    }
    type Target = keyof typeof targets
    // Warm-up: the JIT of both servers, SQLite's page cache, the record cache (a record is kept on its second read).
    for (const t of Object.values(targets)) await t.go(2)
    await targets.byId.go(2)
    const shots = Object.fromEntries(Object.keys(targets).map((k) => [k, [] as (Shot & { cpuUs: number })[]])) as Record<
      Target,
      (Shot & { cpuUs: number })[]
    >
    for (let r = 0; r < ROUNDS; r++)
      for (const [name, t] of Object.entries(targets) as [Target, (typeof targets)[Target]][])
        shots[name].push(await withCpu(t.pid, SECONDS, () => t.go(SECONDS)))
    const ratio = (a: Target, b: Target) => round(median(shots[a].map((s, i) => s.rps / (shots[b][i] as Shot).rps)))
    const rps = (t: Target) => medianRps(shots[t])
    const cpu = (t: Target) => round(median(shots[t].map((s) => s.cpuUs)), 1)
    const byIdRatio = ratio('byId', 'bare')
    rows.push(
      {
        figure: `GET /notes/:id over ${ids.length} notes, req/s (64 conn) vs bare Fastify, same JSON`,
        value: rps('byId'),
        baseline: rps('bare'),
        ratio: byIdRatio,
        aim: '≥ 0.7',
        met: byIdRatio >= 0.7,
      },
      {
        figure: 'server CPU µs per request: by id vs bare',
        value: cpu('byId'),
        baseline: cpu('bare'),
        ratio: round(cpu('bare') / cpu('byId')),
      },
    )
    const listRatio = ratio('list', 'bare')
    rows.push({
      figure: 'GET /notes?limit=20 req/s (64 conn) vs bare by-id',
      value: rps('list'),
      baseline: rps('bare'),
      ratio: listRatio,
      aim: '≥ 0.3',
      met: listRatio >= 0.3,
    })
    rows.push({
      figure: "one note over and over (the record cache's best case) vs bare, one id",
      value: rps('oneId'),
      baseline: rps('bareOne'),
      ratio: ratio('oneId', 'bareOne'),
    })
    bare.stop()

    step('creates')
    // Creates, alternating with SQLite alone: 2 rounds each.
    const creates: number[] = []
    const alone: number[] = []
    const failed: Record<string, number> = {
      reads: Object.values(shots)
        .flat()
        .reduce((n, s) => n + s.errors, 0),
    }
    let errors = failed.reads as number
    const postHeaders = { ...headers, 'content-type': 'application/json' }
    for (let r = 0; r < 2; r++) {
      const shot = await shoot(`${api}/notes`, { connections: 16, seconds: 4, headers: postHeaders, lua: createsLua(256) })
      creates.push(shot.rps)
      failed.creates = (failed.creates ?? 0) + shot.errors
      errors += shot.errors
      alone.push(sqliteCreates(file, userId, 16, 4))
    }
    const createRate = Math.round(median(creates))
    const aloneRate = Math.round(median(alone))
    rows.push({
      figure: 'POST /notes, ~1 KiB notes, creates/s (16 conn) vs better-sqlite3 alone, same rows and FTS5, 16 per tx',
      value: createRate,
      baseline: aloneRate,
      ratio: round(createRate / aloneRate),
      aim: '≥ 5,000/s and ≥ 0.6',
      met: createRate >= 5000 && createRate / aloneRate >= 0.6,
    })

    step('list and search latency')
    const small = await listLatency(api, headers)
    failed.lists = small.errors
    errors += small.errors
    const count = countNotes(file, userId)
    rows.push(
      {
        figure: `list p99 ms, 1 conn, at ${count.toLocaleString('en-US')} notes: repeated / right after a write`,
        value: `${small.list} / ${small.listAfter}`,
      },
      {
        figure: `search p99 ms, 1 conn, at ${count.toLocaleString('en-US')} notes: repeated / right after a write`,
        value: `${small.search} / ${small.searchAfter}`,
      },
    )

    step('the household')
    // The household: users of their own, each with notes, a key and a socket.
    const members = await inviteUsers(daemon.url, token, USERS)
    const household = members.map((m, i) => {
      seedNotes(file, m.userId, 2000, 10_000_000 * (i + 1))
      return { ...m, ids: spreadIds(file, m.userId, 500) }
    })
    const mixed = await mixedLoad(daemon.url, household, { connections: 32, seconds: 10, memory })
    failed.household = mixed.errors
    errors += mixed.errors
    rows.push({
      figure: `${USERS} users at once (70% by id, 10% list, 10% search, 10% create; a WebSocket each), req/s (32 conn) vs bare by-id`,
      value: mixed.rps,
      baseline: rps('bare'),
      ratio: round(mixed.rps / rps('bare')),
    })
    rows.push({
      figure: 'same: p99 ms; sockets open; fewest events one socket received',
      value: `${mixed.p99}; ${mixed.sockets}; ${mixed.eventsMin}`,
    })
    step('60 s after the load')
    await sleep(60_000)
    const after = memory()

    rows.push(
      {
        figure: 'idle private memory MB (RssAnon, 12 s after start) vs bare Fastify',
        value: idle.private,
        baseline: bareMem.private,
        ratio: round(idle.private / bareMem.private),
        aim: '≤ 1.3',
        met: idle.private / bareMem.private <= 1.3,
      },
      { figure: 'idle RSS MB vs bare Fastify', value: idle.rss, baseline: bareMem.rss, ratio: round(idle.rss / bareMem.rss) },
      {
        figure: 'RSS MB, peak under the household load vs idle',
        value: mixed.peak.rss,
        baseline: idle.rss,
        ratio: round(mixed.peak.rss / idle.rss),
      },
      {
        figure: 'RSS MB 60 s after the load vs idle',
        value: after.rss,
        baseline: idle.rss,
        ratio: round(after.rss / idle.rss),
        aim: '≤ 1.5',
        met: after.rss / idle.rss <= 1.5,
      },
      {
        figure: 'private MB 60 s after the load vs idle',
        value: after.private,
        baseline: idle.private,
        ratio: round(after.private / idle.private),
      },
      {
        figure: 'start: spawn → /health 200 ms, existing data folder, median of 5, vs bare Fastify listening',
        value: started.bundle as number,
        baseline: bareStartMs,
        ratio: round((started.bundle as number) / bareStartMs),
        aim: '< 250 ms',
        met: (started.bundle as number) < 250,
      },
      {
        figure: 'start without the bundle (dist/core/main.js) / without the compile cache, ms; first start',
        value: `${started.unbundled} / ${started['no compile cache']}; ${firstStart}`,
        baseline: started.bundle,
      },
    )

    step('the large folder')
    if (LARGE > count) {
      const grown = seedNotes(file, userId, LARGE - count, count + 1_000_000)
      notes.push(`seeded ${LARGE - count} more notes in ${round(grown.seconds, 1)} s`)
    }
    if (LARGE > 0) {
      const large = await listLatency(api, headers)
      errors += large.errors
      const at = countNotes(file, userId).toLocaleString('en-US')
      rows.push(
        {
          figure: `list p99 ms, 1 conn, at ${at} notes: repeated / right after a write`,
          value: `${large.list} / ${large.listAfter}`,
          aim: '< 5',
          met: Math.max(large.list, large.listAfter) < 5,
        },
        {
          figure: `search p99 ms, 1 conn, at ${at} notes: repeated / right after a write`,
          value: `${large.search} / ${large.searchAfter}`,
          aim: '< 15',
          met: Math.max(large.search, large.searchAfter) < 15,
        },
      )
    }
    rows.push({ figure: 'errors and non-2xx answers, all HTTP loads', value: errors, aim: '0', met: errors === 0 })
    notes.push(`errors by load (wrk: non-2xx, socket errors and time-outs of 2 s): ${JSON.stringify(failed)}`)
    notes.push(
      `seeded ${NOTES - Math.min(have, NOTES)} notes in ${round(seeded.seconds, 1)} s; daemon CPU s used: ${round(cpuMs(daemon.pid) / 1000, 1)}`,
    )
  } finally {
    for (const stop of stops) stop()
    await daemon.stop()
    rmSync(scratch, { recursive: true, force: true })
    if (!kept) rmSync(daemon.dataDir, { recursive: true, force: true })
  }

  step('DNS')
  const dns = await benchDns()
  const dnsRatio = Number(dns['dns.ratio_to_knot'])
  rows.push({
    figure: 'DNS queries/s, 10,000-record zone, dnsperf vs Knot with one UDP worker',
    value: dns['dns.hearth.qps'] as number,
    baseline: dns['dns.knot.qps'] as number,
    ratio: dnsRatio,
    aim: '≥ 0.8',
    met: dnsRatio >= 0.8,
  })
  const writes = await benchDnsWrites()
  const last = writes['writes/s, 9,000 → 10,000 records'] as number
  rows.push({
    figure: 'DNS record writes/s into a 10,000-record zone vs the first 1,000',
    value: last,
    baseline: writes['writes/s, first 1,000 (empty zone: baseline)'] as number,
    ratio: writes['ratio (aim ≈ 1)'] as number,
    aim: '≥ 1,000/s',
    met: last >= 1000,
  })
  notes.push(`load average at the end: ${load()}`)
  console.log(`\n${markdownTable(rows)}\n\n${notes.map((n) => `- ${n}`).join('\n')}\n`)
  return Object.fromEntries(rows.map((r) => [r.figure, r.ratio === undefined ? String(r.value) : `${r.value} (${r.ratio})`]))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await benchPerf()
