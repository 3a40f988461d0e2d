import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { migrate, readMigrations } from '../../../core/db/migrate.js'
import { openDatabase } from '../../../core/db/sqlite.js'
import { compileCheck } from '../../../core/validation.js'
import { RANK_LIMIT } from '../engine/list.js'
import { createRecordsService } from '../service.js'
import { bench } from './records-app.js'

const HOSTILE = [
  '"',
  '""',
  '"unbalanced',
  '*',
  'meet*',
  '**',
  'NEAR(',
  'NEAR(meeting notes, 5)',
  'title:',
  'title:meeting',
  'content:"x"',
  '(',
  ')',
  '((meeting',
  'meeting)',
  '[',
  '{x}',
  '^meeting',
  'AND',
  'OR OR',
  'NOT',
  'meeting AND',
  '-meeting',
  '+',
  "'; DROP TABLE notes; --",
  "' OR 1=1 --",
  'SELECT * FROM notes',
  '%',
  '_',
  '\\',
  '\u0000',
  '😀',
  'a'.repeat(400),
  Array.from({ length: 60 }, (_, i) => `w${i}`).join(' '),
]

t.test('hostile search strings never raise: each answers 200 with a list', async (t) => {
  const { call } = await bench(t)
  await call('POST', '/notes', { content: 'Meeting notes: title and NEAR things' })
  await call('POST', '/contacts', { display_name: 'Meeting Person' })
  await call('POST', '/events', { title: 'Meeting', start_at: '2026-11-20T10:00:00Z' })
  await call('POST', '/tasks', { title: 'Meeting prep' })
  for (const path of ['notes', 'contacts', 'events', 'tasks']) {
    for (const q of HOSTILE) {
      const res = await call('GET', `/${path}?search=${encodeURIComponent(q)}`)
      t.equal(res.status, 200, `${path}: ${JSON.stringify(q.slice(0, 40))}`)
      t.ok(Array.isArray(res.body.data) && typeof res.body.meta.total === 'number')
    }
  }
  const notes = (await call('GET', '/notes')).body.meta.total
  t.equal(notes, 1, 'the table is still there')
})

t.test('operators are searched as words; prefixes match; diacritics fold', async (t) => {
  const { call } = await bench(t)
  const meeting = (await call('POST', '/notes', { content: 'Weekly meeting with the café team' })).body.data
  const near = (await call('POST', '/notes', { content: 'Things NEAR the river', title: 'Title: walks' })).body.data
  const drop = (await call('POST', '/notes', { content: "robert'); DROP TABLE students;--" })).body.data
  const ids = async (q: string) => (await call('GET', `/notes?search=${encodeURIComponent(q)}`)).body.data.map((n: { id: string }) => n.id)
  t.same(await ids('meet'), [meeting.id], 'prefix: meet finds meeting')
  t.same(await ids('MEETING'), [meeting.id], 'case-insensitive')
  t.same(await ids('cafe'), [meeting.id], 'cafe finds café')
  t.same(await ids('weekly meet'), [meeting.id], 'words are ANDed')
  t.same(await ids('weekly river'), [])
  t.same(await ids('NEAR('), [near.id], 'NEAR( is the word near')
  t.same(await ids('title:'), [near.id], 'title: is the word title')
  t.same(await ids('"river'), [near.id], 'an unbalanced quote is ignored')
  t.same(await ids('DROP TABLE'), [drop.id], 'SQL look-alikes are words')
  t.same(await ids('*'), [], 'no word at all: nothing matches')
  t.same(
    await ids('   '),
    (await call('GET', '/notes')).body.data.map((n: { id: string }) => n.id),
    'blank search: no filter',
  )
})

t.test('relevance ranking (bm25) unless sort is given; search combines with filters and paging', async (t) => {
  const { call, clock } = await bench(t)
  const make = async (body: Record<string, unknown>) => {
    clock.advance(1000)
    return (await call('POST', '/notes', body)).body.data
  }
  const inBody = await make({ title: 'Misc', content: 'a long text that mentions budget once among many other words here' })
  const inTitle = await make({ title: 'Budget 2027', content: 'numbers' })
  const both = await make({ title: 'Budget review', content: 'budget', tags: ['fin'] })
  // bm25's idf needs the word to be rare in the corpus, as it is in real notes.
  for (let i = 0; i < 10; i++) await make({ title: `Other ${i}`, content: 'unrelated words' })
  const ranked = await call('GET', '/notes?search=budget')
  t.same(
    ranked.body.data.map((n: { id: string }) => n.id),
    [both.id, inTitle.id, inBody.id],
    'most relevant first: title matches weigh more than body matches',
  )
  t.equal(ranked.body.meta.total, 3)
  const sorted = await call('GET', '/notes?search=budget&sort=created_at&order=asc')
  t.same(
    sorted.body.data.map((n: { id: string }) => n.id),
    [inBody.id, inTitle.id, both.id],
    'an explicit sort wins over relevance',
  )
  const page = await call('GET', '/notes?search=budget&limit=1&offset=1')
  t.same(page.body.meta, { total: 3, limit: 1, offset: 1 })
  t.same(
    page.body.data.map((n: { id: string }) => n.id),
    [inTitle.id],
  )
  t.same(
    (await call('GET', '/notes?search=budget&tag=fin')).body.data.map((n: { id: string }) => n.id),
    [both.id],
  )

  await call('PATCH', `/notes/${inTitle.id}`, { title: 'Forecast', content: 'numbers' })
  t.same(
    (await call('GET', '/notes?search=budget')).body.data.map((n: { id: string }) => n.id),
    [both.id, inBody.id],
    'the index follows updates (trigger)',
  )
  t.same(
    (await call('GET', '/notes?search=forecast')).body.data.map((n: { id: string }) => n.id),
    [inTitle.id],
  )
  await call('DELETE', `/notes/${both.id}?permanent=true`)
  t.same(
    (await call('GET', '/notes?search=budget')).body.data.map((n: { id: string }) => n.id),
    [inBody.id],
    'and deletes',
  )
})

t.test('events search covers title and description only', async (t) => {
  const { call } = await bench(t)
  const ev = (
    await call('POST', '/events', {
      title: 'Board meeting',
      description: 'quarterly numbers',
      location: 'Boardroom',
      start_at: '2026-11-20T10:00:00Z',
    })
  ).body.data
  t.same(
    (await call('GET', '/events?search=quarter')).body.data.map((e: { id: string }) => e.id),
    [ev.id],
  )
  t.same(
    (await call('GET', '/events?search=board')).body.data.map((e: { id: string }) => e.id),
    [ev.id],
  )
  t.same((await call('GET', '/events?search=boardroom')).body.data, [], 'location is not indexed (api.md: title and description)')
})

t.test('a word matching more than RANK_LIMIT records is ordered by the default sort, still totalled exactly', async (t) => {
  const { app, call, clock, events } = await bench(t)
  await call('POST', '/notes', { content: 'first common' })
  const userId = events[0]?.userId as string
  // Seeded through a second connection, as the CLI or a seeder would: the API's cached pages must notice.
  const before = await call('GET', '/notes?search=common&limit=3')
  t.equal(before.body.meta.total, 1)
  const other = openDatabase(join(app.dataDir, 'hearth.db'))
  t.teardown(() => other.close())
  const service = createRecordsService({
    validator: compileCheck,
    db: other,
    events: { emit: () => undefined as never },
    now: () => clock.ms + 1000,
  })
  const seeded = service.importMany(
    userId,
    'notes',
    Array.from({ length: RANK_LIMIT + 10 }, (_, i) => ({ content: `common word ${i}` })),
    { emit: false },
  )
  t.equal(seeded.failed.length, 0)
  const res = await call('GET', '/notes?search=common&limit=3')
  t.equal(res.body.meta.total, RANK_LIMIT + 11, 'a write by another connection is seen at once')
  t.same(
    res.body.data.map((n: { content: string }) => n.content),
    ['common word 5009', 'common word 5008', 'common word 5007'],
    'newest first, as the default sort says',
  )
})

t.test('upgrading indexes every existing record under its owner', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-fts-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const db = openDatabase(join(dir, 'hearth.db'))
  t.teardown(() => db.close())
  migrate(db, 'core', readMigrations(new URL('../../../core/auth/migrations/', import.meta.url)))
  const all = readMigrations(new URL('../migrations/', import.meta.url))
  const before = migrate(
    db,
    'records',
    all.filter((m) => m.version < 14),
  )
  t.equal(before.at(-1), 13)
  // Any id, not only a UUID, names one owner: the index holds the hex of its bytes.
  const owners = ['3f0c-ü', 'b"{owner}']
  const user = db.prepare(
    `INSERT INTO users (id, email, password_hash, role, password_changed_at, created_at, updated_at) VALUES (?, ?, 'x', 'user', 0, 'a', 'a')`,
  )
  for (const [i, id] of owners.entries()) {
    user.run(id, `m${i}@example.test`)
    for (let n = 0; n < 3 + i; n++) {
      const key = `${i}-${n}`
      db.prepare(`INSERT INTO notes (id, user_id, title, content, created_at, updated_at) VALUES (?, ?, 'Quarterly', 'x', 'a', 'a')`).run(
        `n${key}`,
        id,
      )
      db.prepare(
        `INSERT INTO contacts (id, user_id, display_name, company, created_at, updated_at) VALUES (?, ?, 'A', 'Quarterly', 'a', 'a')`,
      ).run(`c${key}`, id)
      db.prepare(`INSERT INTO events (id, user_id, title, start_at, created_at, updated_at) VALUES (?, ?, 'Quarterly', 'b', 'a', 'a')`).run(
        `e${key}`,
        id,
      )
      db.prepare(`INSERT INTO tasks (id, user_id, title, created_at, updated_at) VALUES (?, ?, 'Quarterly', 'a', 'a')`).run(`t${key}`, id)
    }
  }
  t.same(migrate(db, 'records', all), [14])
  const service = createRecordsService({ validator: compileCheck, db, events: { emit: () => undefined as never }, now: () => Date.now() })
  for (const resource of ['notes', 'contacts', 'events', 'tasks'] as const) {
    for (const [i, id] of owners.entries()) {
      const page = service.list(id, resource, { search: 'quarterly', limit: 100 })
      t.equal(page.total, 3 + i, `${resource}: each owner finds their own`)
      t.ok(
        page.items.every((r) => r.owner_id === id),
        `${resource}: and only theirs`,
      )
    }
  }
})
