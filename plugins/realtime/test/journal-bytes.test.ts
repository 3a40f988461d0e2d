import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { migrate, readMigrations } from '../../../core/db/migrate.js'
import { openDatabase } from '../../../core/db/sqlite.js'
import { auth, owner } from '../../../test/helper.js'
import { createJournal } from '../journal.js'
import { listening, type Message, TestClient } from './ws-client.js'

/**
 * The journal is bounded by bytes as well as by events and age: a large record is journaled by
 * reference (the event keeps its small fields, says which ones it left out, and the client reads
 * the record by its id), so 50 saves of a 1 MB note cannot fill the disk with 50 copies of it, and a
 * client resuming after them still gets each event, in order, with what identifies the record.
 */
const MB = 1024 * 1024
/** A note of about 1 MB: the longest content a note takes is 1,000,000 characters. */
const BIG = 999_990

/** Bytes of live data in the database file (pages in use), read from a connection of our own. */
function liveBytes(dataDir: string): { pages: number; journal: number } {
  const db = new Database(join(dataDir, 'hearth.db'), { readonly: true })
  try {
    const size = db.pragma('page_size', { simple: true }) as number
    const used = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number)
    const journal = db.prepare('SELECT coalesce(sum(length(CAST(message AS BLOB))), 0) AS n FROM realtime_journal').get() as { n: number }
    return { pages: used * size, journal: journal.n }
  } finally {
    db.close()
  }
}

t.test(
  '50 saves of a 1 MB note do not grow the journal by 50 MB; a resume after them still replays each event',
  { timeout: 300_000 },
  async (t) => {
    // A live client may buffer a whole 1 MB event (the default lets it buffer 1 MB in all).
    const { app, url } = await listening(t, { env: { HEARTH_WS_MAX_BUFFER_BYTES: String(4 * MB) } })
    const o = await owner(app)
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/notes',
      headers: auth(o.token),
      payload: { title: 'big', content: 'a'.repeat(BIG) },
    })
    t.equal(created.statusCode, 201, 'a note of about 1 MB')
    const note = created.json().data as { id: string }
    const watcher = await TestClient.open(url, auth(o.token))
    const cursor = watcher.of('ready')[0]?.data.seq as number
    watcher.close()
    await watcher.closed()
    await new Promise((r) => setImmediate(r))
    const before = liveBytes(app.dataDir)

    let last: { etag: string } | undefined
    for (let i = 0; i < 50; i++) {
      const res = await app.inject({
        method: 'PATCH',
        url: `/api/v1/notes/${note.id}`,
        headers: auth(o.token),
        payload: { content: `${i} ${'b'.repeat(BIG - 3)}` },
      })
      if (res.statusCode !== 200) t.fail(`PATCH ${i}: ${res.statusCode}`)
      last = res.json().data
    }
    // The journal's queue is written on the next turn of the event loop.
    await new Promise((r) => setImmediate(r))
    const after = liveBytes(app.dataDir)
    const grewMb = (after.pages - before.pages) / MB
    t.comment(`database grew ${grewMb.toFixed(1)} MB; the journal holds ${(after.journal / MB).toFixed(2)} MB`)
    t.ok(
      after.journal - before.journal < MB,
      `the journal grew ${((after.journal - before.journal) / MB).toFixed(2)} MB for 50 MB of saves`,
    )
    t.ok(grewMb < 16, `the database grew ${grewMb.toFixed(1)} MB (journaled whole, 50 saves made it 48 MB)`)

    const back = await TestClient.open(`${url}?since=${cursor}`, auth(o.token))
    t.equal(back.messages[0]?.type, 'ready', 'the cursor is still covered: no resync')
    t.equal(back.of('ready')[0]?.data.replay, 50)
    const replayed: Message[] = []
    for (let i = 0; i < 50; i++) replayed.push(await back.next((m) => m.type === 'note.updated' && !replayed.includes(m)))
    t.ok(
      replayed.every((m) => m.id === note.id),
      'every replayed event names the note',
    )
    const seqs = replayed.map((m) => m.seq as number)
    t.ok(
      seqs.every((s, i) => i === 0 || s > (seqs[i - 1] as number)),
      'in order',
    )
    const final = replayed.at(-1) as Message & { truncated?: string[] }
    t.same(final.truncated, ['content'], 'the event says which field it left out')
    t.equal(final.data.content, undefined, 'the 1 MB content is not in the journal')
    t.equal(final.data.etag, last?.etag, 'the small fields are kept: the etag says which version the event was')
    const fetched = await app.inject({ method: 'GET', url: `/api/v1/notes/${note.id}`, headers: auth(o.token) })
    t.ok((fetched.json().data.content as string).startsWith('49 '), 'the record read by its id is the newest version')

    // Live clients still get the whole record.
    const live = await TestClient.open(url, auth(o.token))
    await app.inject({
      method: 'PATCH',
      url: `/api/v1/notes/${note.id}`,
      headers: auth(o.token),
      payload: { content: `live ${'c'.repeat(BIG - 5)}` },
    })
    const pushed = await live.next((m) => m.type === 'note.updated', 10_000)
    t.equal((pushed.data.content as string).length, BIG, 'a live event carries the whole record')
    t.equal((pushed as { truncated?: unknown }).truncated, undefined)
    back.close()
    live.close()
  },
)

t.test('the journal keeps at most maxBytes of messages: the oldest go, a cursor before them resyncs', async (t) => {
  const file = join(mkdtempSync(join(tmpdir(), 'hearth-journal-')), 'hearth.db')
  const db = openDatabase(file)
  t.teardown(() => db.close())
  migrate(db, 'realtime', readMigrations(new URL('../migrations/', import.meta.url)))
  const journal = createJournal(db, { size: 10_000, maxAgeMs: 3_600_000, maxBytes: 10_000, now: Date.now })
  const message = (seq: number) => JSON.stringify({ seq, text: 'x'.repeat(900) }).padEnd(1000, ' ')
  for (let i = 0; i < 100; i++) journal.append(null, 'note.created', message)
  await new Promise((r) => setImmediate(r))
  journal.trim()
  const kept = db.prepare('SELECT count(*) AS n, min(seq) AS oldest, sum(length(message)) AS bytes FROM realtime_journal').get() as {
    n: number
    oldest: number
    bytes: number
  }
  t.ok(kept.bytes <= 10_000, `${kept.bytes} bytes kept`)
  t.equal(kept.n, 10, 'the newest ten 1,000-byte messages')
  t.equal(kept.oldest, 91)
  t.match(journal.replay(50, null), { resync: true }, 'a cursor before the cut resyncs')
  const recent = journal.replay(95, null)
  t.same(recent.resync ? [] : recent.entries.map((e) => e.seq), [96, 97, 98, 99, 100], 'a recent one replays')
  journal.close()
})
