import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { migrate, readMigrations } from '../../../core/db/migrate.js'
import { openDatabase } from '../../../core/db/sqlite.js'
import { createJournal } from '../journal.js'

/**
 * The journal is trimmed at every start, every few minutes and every size/10 events. Finding the cut must
 * not read the events it keeps: counting back `size` rows, or looking for the newest old one by age without
 * an index, read every message into SQLite's page cache, which kept them for the daemon's life (~6 MB at the
 * default 10,000 events: docs/performance.md). What a client sees must not change: the newest `size`
 * events stay resumable, older or expired ones go.
 */
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const MESSAGE = 'x'.repeat(600)

function open(file: string, size: number, now: () => number) {
  const db = openDatabase(file)
  migrate(db, 'realtime', readMigrations(new URL('../migrations/', import.meta.url)))
  return { db, journal: createJournal(db, { size, maxAgeMs: 3_600_000, now }) }
}

t.test('a trim reads what it removes, not the events it keeps; the newest `size` events stay', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'hearth-journal-')), 'hearth.db')
  let clock = Date.now()
  const first = open(file, 10_000, () => clock)
  for (let i = 0; i < 10_100; i++) first.journal.append(null, 'note.created', (seq) => JSON.stringify({ seq, MESSAGE }))
  await settle(50)
  first.journal.trim()
  const kept = first.db.prepare('SELECT count(*) AS n, min(seq) AS oldest FROM realtime_journal').get()
  t.same(kept, { n: 10_000, oldest: 101 }, 'trimmed to its size as the events came in: the oldest 100 went')
  first.journal.close()
  first.db.close()

  // A restart: a process of its own with an empty page cache (this one's malloc keeps the first
  // connection's pages free for reuse), 10,000 events of 600 bytes in the file (the daemon's default size).
  clock += 60_000
  const child = `
import { openDatabase } from ${JSON.stringify(new URL('../../../core/db/sqlite.js', import.meta.url).href)}
import { migrate, readMigrations } from ${JSON.stringify(new URL('../../../core/db/migrate.js', import.meta.url).href)}
import { createJournal } from ${JSON.stringify(new URL('../journal.js', import.meta.url).href)}
const db = openDatabase(${JSON.stringify(file)})
migrate(db, 'realtime', readMigrations(new URL(${JSON.stringify(new URL('../migrations/', import.meta.url).href)})))
const journal = createJournal(db, { size: 10_000, maxAgeMs: 3_600_000, now: () => ${clock} })
const before = process.memoryUsage().rss
const removed = journal.trim()
console.log(JSON.stringify({ removed, grewMb: (process.memoryUsage().rss - before) / 1048576 }))
journal.close()
db.close()
`
  const restarted = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8' })) as {
    removed: number
    grewMb: number
  }
  t.equal(restarted.removed, 0, 'nothing past the size or the age')
  t.ok(restarted.grewMb < 2, `the trim left ${restarted.grewMb.toFixed(1)} MB in the page cache (the events it keeps are 7 MB)`)

  const second = open(file, 10_000, () => clock)
  t.teardown(() => second.db.close())
  const replay = second.journal.replay(100, null)
  t.equal(replay.resync, false, 'a cursor at the trim point resumes')
  if (!replay.resync) t.same([replay.entries[0]?.seq, replay.entries.length], [101, 10_000], 'with the newest 10,000 events')
  t.equal(second.journal.replay(99, null).resync, true, 'an older cursor resyncs')

  clock += 2 * 3_600_000
  t.equal(second.journal.trim(), 10_000, 'past the age, they all go')
})
