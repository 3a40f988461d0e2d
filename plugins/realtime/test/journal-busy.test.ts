import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { migrate, readMigrations } from '../../../core/db/migrate.js'
import { openDatabase } from '../../../core/db/sqlite.js'
import { createJournal, MAX_PENDING } from '../journal.js'

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A journal on its own data file, with a second connection that can hold the write lock. */
function setup(t: { teardown(fn: () => void): void }, busyMs: number) {
  const file = join(mkdtempSync(join(tmpdir(), 'hearth-journal-')), 'hearth.db')
  const db = openDatabase(file)
  t.teardown(() => db.close())
  migrate(db, 'realtime', readMigrations(new URL('../migrations/', import.meta.url)))
  db.pragma(`busy_timeout = ${busyMs}`)
  const refused: string[] = []
  const journal = createJournal(db, { size: 2, maxAgeMs: 3_600_000, now: Date.now, onError: (_err, what) => refused.push(what) })
  const other = new Database(file)
  t.teardown(() => other.close())
  const written = () => (other.prepare('SELECT seq FROM realtime_journal ORDER BY seq').all() as Array<{ seq: number }>).map((r) => r.seq)
  const append = (n: number) => journal.append(null, 'note.created', (seq) => JSON.stringify({ seq, n }))
  return { db, journal, other, refused, written, append }
}

// Another process holding the write lock past the busy timeout (a long import, a seeder, the CLI)
// made the queued journal write throw from setImmediate: an uncaught exception, the daemon gone.
t.test('a journal write or trim the database refuses is kept and tried again, never thrown from the event loop', async (t) => {
  const { journal, other, refused, written, append } = setup(t, 50)
  other.exec('BEGIN IMMEDIATE')
  for (const n of [1, 2, 3]) append(n)
  await settle(200)
  t.same(refused, ['write'], 'the refused write is reported once, not at every retry')
  const meanwhile = journal.replay(0, null)
  t.same(meanwhile.resync ? [] : meanwhile.entries.map((e) => e.seq), [1, 2, 3], 'a replay still gets the queued events')

  journal.trimQuietly()
  t.ok(refused.includes('trim'), 'a refused trim is reported, not thrown')

  other.exec('COMMIT')
  for (let waited = 0; written().length < 3 && waited < 5000; waited += 50) await settle(50)
  t.same(written(), [1, 2, 3], 'written once the lock is free')
  t.equal(journal.trim(), 1, 'and trimmed to its size')
  t.same(written(), [2, 3])
})

t.test('while refused, appends do not wait for the lock, and a stop ends the retries', async (t) => {
  const { journal, other, refused, append } = setup(t, 100)
  other.exec('BEGIN IMMEDIATE')
  append(0)
  await settle(150) // the first write waited its busy timeout and was refused: retries are on
  const started = performance.now()
  for (let n = 1; n <= MAX_PENDING * 2; n++) append(n)
  t.ok(performance.now() - started < 100, 'appends past a full queue do not each wait for the lock')
  journal.close()
  const after = refused.length
  await settle(400)
  t.equal(refused.length, after, 'no retry after the stop')
  other.exec('COMMIT')
  const state = other.prepare('SELECT clean FROM realtime_journal_state').get() as { clean: number }
  t.equal(state.clean, 0, 'events never written: the next start makes every older cursor resync')
})
