import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { migrate, readMigrations } from '../../../core/db/migrate.js'
import { openDatabase } from '../../../core/db/sqlite.js'
import { createJournal } from '../journal.js'

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// Another process holding the write lock past the busy timeout (a long import, a seeder, the CLI)
// made the queued journal write throw from setImmediate: an uncaught exception, the daemon gone.
t.test('a journal write or trim the database refuses is kept and tried again, never thrown from the event loop', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'hearth-journal-')), 'hearth.db')
  const db = openDatabase(file)
  t.teardown(() => db.close())
  migrate(db, 'realtime', readMigrations(new URL('../migrations/', import.meta.url)))
  db.pragma('busy_timeout = 50')
  const refused: string[] = []
  const journal = createJournal(db, { size: 2, maxAgeMs: 3_600_000, now: Date.now, onError: (_err, what) => refused.push(what) })

  const other = new Database(file)
  t.teardown(() => other.close())
  other.exec('BEGIN IMMEDIATE')
  for (const n of [1, 2, 3]) journal.append(null, 'note.created', (seq) => JSON.stringify({ seq, n }))
  await settle(200)
  t.ok(refused.includes('write'), 'the refused write is reported')
  const meanwhile = journal.replay(0, null)
  t.same(meanwhile.resync ? [] : meanwhile.entries.map((e) => e.seq), [1, 2, 3], 'a replay still gets the queued events')

  journal.trimQuietly()
  t.ok(refused.includes('trim'), 'a refused trim is reported, not thrown')

  other.exec('COMMIT')
  await settle(400)
  const reader = new Database(file, { readonly: true })
  t.teardown(() => reader.close())
  const seqs = () => (reader.prepare('SELECT seq FROM realtime_journal ORDER BY seq').all() as Array<{ seq: number }>).map((r) => r.seq)
  t.same(seqs(), [1, 2, 3], 'written once the lock is free')
  t.equal(journal.trim(), 1, 'and trimmed to its size')
  t.same(seqs(), [2, 3])
})
