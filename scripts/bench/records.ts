import { compileCheck } from '../../core/validation.js'
/**
 * Records bench: one user with 100,000 notes, 20,000 contacts and 20,000
 * events, seeded straight through the records service (one transaction per
 * resource) into the data folder of a real daemon process, then loaded over
 * HTTP with autocannon: list and search p99, sustained note writes, and
 * GET /notes/:id beside the bare Fastify route serving the same JSON.
 */
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { databasePath, openDatabase } from '../../core/db/sqlite.js'
import { createRecordsService } from '../../plugins/records/service.js'
import { load, ownerWithKey, ROOT, startDaemon, startScript, timeRuns } from './harness.js'

const NOTES = 100_000
const CONTACTS = 20_000
const EVENTS = 20_000
/** The searched word, planted in 1% of the notes (a realistic, selective query). */
export const WORD = 'quarterly'

/** Deterministic pseudo-random numbers, so every run seeds the same text. */
export function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'shi', 'ber', 'gon', 'vel', 'dra', 'pin', 'sol', 'mar', 'tek', 'und']

export function vocabulary(random: () => number, size = 3000): string[] {
  const words = new Set<string>()
  while (words.size < size) {
    const n = 1 + Math.floor(random() * 3)
    words.add(Array.from({ length: n }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(''))
  }
  return [...words]
}

function seedBodies(random: () => number) {
  const words = vocabulary(random)
  // Zipf-like: low indexes much more frequent, as in prose.
  const word = () => words[Math.floor(words.length * random() ** 3)] as string
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ')
  const notes = Array.from({ length: NOTES }, (_, i) => ({
    title: sentence(4),
    content: `${sentence(40)}${i % 100 === 0 ? ` ${WORD} ` : ' '}${sentence(60)}`,
    tags: [words[i % 20] as string],
    pinned: i % 50 === 0,
  }))
  const contacts = Array.from({ length: CONTACTS }, (_, i) => ({
    first_name: word(),
    last_name: word(),
    emails: [{ address: `person${i}@example.test`, label: 'personal', primary: true }],
    phones: [{ number: `+1 555 ${String(1_000_000 + i).slice(1)}`, label: 'mobile' }],
    company: i % 3 ? `${word()} corp` : null,
  }))
  const start = Date.parse('2026-01-01T09:00:00Z')
  const events = Array.from({ length: EVENTS }, (_, i) => ({
    title: sentence(3),
    start_at: new Date(start + i * 3_600_000 * 7).toISOString(),
    ...(i % 200 === 0 ? { recurrence: { freq: 'WEEKLY', byday: ['MO'] } } : {}),
  }))
  return { notes, contacts, events }
}

/** p99 of 200 in-process runs, in ms. */
const timed = (fn: () => unknown): number => timeRuns(fn, 200)(0.99)

const fileBytes = (path: string) => {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

export async function benchRecords(): Promise<Record<string, number | string>> {
  const daemon = await startDaemon()
  const out: Record<string, number | string> = {}
  try {
    const { key, userId } = await ownerWithKey(daemon.url, 'agent')
    const headers = { authorization: `Bearer ${key}` }

    // Seed beside the running daemon (WAL: its readers never wait), through the service.
    const file = databasePath(daemon.dataDir)
    const db = openDatabase(file)
    const service = createRecordsService({ validator: compileCheck, db, events: { emit: () => undefined as never }, now: Date.now })
    const bodies = seedBodies(rng(42))
    db.pragma('wal_checkpoint(TRUNCATE)')
    const before = fileBytes(file)
    let started = performance.now()
    const seeded = service.importMany(userId, 'notes', bodies.notes, { emit: false })
    out['seed 100k notes s'] = Math.round((performance.now() - started) / 100) / 10
    db.pragma('wal_checkpoint(TRUNCATE)')
    out['db bytes per 1,000 notes (KB)'] = Math.round((fileBytes(file) - before) / (NOTES / 1000) / 1024)
    started = performance.now()
    service.importMany(userId, 'contacts', bodies.contacts, { emit: false })
    service.importMany(userId, 'events', bodies.events, { emit: false })
    out['seed 20k contacts + 20k events s'] = Math.round((performance.now() - started) / 100) / 10
    db.pragma('wal_checkpoint(TRUNCATE)')
    // The queries themselves, without HTTP and without the list cache.
    const direct = createRecordsService({
      validator: compileCheck,
      db,
      events: { emit: () => undefined as never },
      now: Date.now,
      listCache: false,
      recordCacheBytes: 0,
    })
    out['service list (no cache) p99 ms'] = timed(() => direct.list(userId, 'notes', { limit: 20 }))
    out[`service search ${WORD} (no cache) p99 ms`] = timed(() => direct.list(userId, 'notes', { search: WORD }))
    db.close()
    if (seeded.failed.length) throw new Error(`seeding failed: ${seeded.failed[0]?.error.message}`)
    const noteId = seeded.created[NOTES / 2]?.id as string

    const api = `${daemon.url}/api/v1`
    const sample = await (await fetch(`${api}/notes/${noteId}`, { headers })).text()
    const hits = ((await (await fetch(`${api}/notes?search=${WORD}`, { headers })).json()) as { meta: { total: number } }).meta.total
    const bare = await startScript(join(ROOT, 'dist/scripts/bench/bare-server.js'), [sample])
    try {
      await load(`${api}/notes?limit=20`, { headers, seconds: 2 }) // warm-up
      const list = await load(`${api}/notes?limit=20`, { headers })
      const search = await load(`${api}/notes?search=${WORD}`, { headers })
      const byId = await load(`${api}/notes/${noteId}`, { headers })
      await load(`${bare.url}/bare`, { seconds: 2 })
      const baseline = await load(`${bare.url}/bare`)
      const writes = await load(`${api}/notes`, {
        headers: { ...headers, 'content-type': 'application/json' },
        method: 'POST',
        body: JSON.stringify({ content: '# Bench\nA note written under load with a few words of text.', tags: ['bench'] }),
      })
      Object.assign(out, {
        'GET /notes?limit=20 p99 ms': list.p99,
        'GET /notes?limit=20 req/s': list.rps,
        [`GET /notes?search=${WORD} p99 ms (${hits} hits; aim < 15)`]: search.p99,
        'GET /notes?search req/s': search.rps,
        'POST /notes writes/s (sustained 5 s)': writes.rps,
        'POST /notes p99 ms': writes.p99,
        'GET /notes/:id req/s': byId.rps,
        'bare fastify same JSON req/s': baseline.rps,
        'GET /notes/:id ratio to bare (aim >= 0.5)': Math.round((byId.rps / baseline.rps) * 100) / 100,
        'errors (all loads)': list.errors + search.errors + byId.errors + writes.errors,
      })
    } finally {
      bare.stop()
    }
  } finally {
    await daemon.stop()
  }
  return out
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.table(await benchRecords())
}
