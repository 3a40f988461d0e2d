import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { migrate, readMigrations } from '../../../core/db/migrate.js'
import { openDatabase } from '../../../core/db/sqlite.js'
import { compileCheck } from '../../../core/validation.js'
import { createRecordsService } from '../service.js'
import { bench, type Call, upload } from './records-app.js'

/**
 * records_counts (migration 007) answers the totals of the plain listings without counting.
 * It must equal count(*) after any sequence of writes, whichever path made them, and the
 * listings' `total` must equal what counting would say.
 */

const DAY = 86_400_000
type Db = ReturnType<typeof openDatabase>

/** What the counters hold and what the tables say, both as sorted "user resource deleted archived n" lines. */
function countsAndTruth(db: Db): { kept: string[]; counted: string[] } {
  const line = (r: Record<string, unknown>) => `${r.user_id} ${r.resource} ${r.deleted} ${r.archived} ${r.n}`
  const kept = db.prepare('SELECT * FROM records_counts WHERE n <> 0').all() as Array<Record<string, unknown>>
  const counted = db
    .prepare(
      `SELECT user_id, 'notes' AS resource, deleted_at IS NOT NULL AS deleted, archived, count(*) AS n FROM notes GROUP BY 1, 3, 4
       UNION ALL
       SELECT user_id, 'contacts', deleted_at IS NOT NULL, 0, count(*) FROM contacts GROUP BY 1, 3`,
    )
    .all() as Array<Record<string, unknown>>
  return { kept: kept.map(line).sort(), counted: counted.map(line).sort() }
}

const NOTE_MATCH = `FROM notes WHERE seq IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'note')`

/** Every listing the counters answer, with the SQL that counts the same rows. */
const VIEWS: Array<[string, string]> = [
  ['/notes', 'FROM notes WHERE deleted_at IS NULL AND archived = 0'],
  ['/notes?archived=true', 'FROM notes WHERE deleted_at IS NULL AND archived = 1'],
  ['/notes?archived=false', 'FROM notes WHERE deleted_at IS NULL AND archived = 0'],
  ['/notes?only_deleted=true', 'FROM notes WHERE deleted_at IS NOT NULL'],
  ['/notes?only_deleted=true&archived=true', 'FROM notes WHERE deleted_at IS NOT NULL AND archived = 1'],
  ['/notes?include_deleted=true', 'FROM notes WHERE archived = 0'],
  ['/notes?include_deleted=true&archived=true', 'FROM notes WHERE archived = 1'],
  ['/contacts', 'FROM contacts WHERE deleted_at IS NULL'],
  ['/contacts?only_deleted=true', 'FROM contacts WHERE deleted_at IS NOT NULL'],
  ['/contacts?include_deleted=true', 'FROM contacts WHERE 1'],
  // Searches of such views count matches minus those outside the view (list.ts, outside()).
  ['/notes?search=note', `${NOTE_MATCH} AND deleted_at IS NULL AND archived = 0`],
  ['/notes?search=note&sort=title', `${NOTE_MATCH} AND deleted_at IS NULL AND archived = 0`],
  ['/notes?search=note&archived=true', `${NOTE_MATCH} AND deleted_at IS NULL AND archived = 1`],
  ['/notes?search=note&only_deleted=true', `${NOTE_MATCH} AND deleted_at IS NOT NULL`],
  ['/notes?search=note&include_deleted=true', `${NOTE_MATCH} AND archived = 0`],
  [
    '/contacts?search=contact',
    `FROM contacts WHERE seq IN (SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH 'contact') AND deleted_at IS NULL`,
  ],
]

/** The first listing whose total differs from count(*), or null. */
async function totalsDiffer(db: Db, users: Array<{ call: Call; id: string }>): Promise<string | null> {
  for (const { call, id } of users) {
    for (const [path, from] of VIEWS) {
      // limit=1: the total must come from the counters (or a count), never from the page's length.
      const res = await call('GET', `${path}${path.includes('?') ? '&' : '?'}limit=1`)
      const truth = db.prepare(`SELECT count(*) ${from} AND user_id = ?`).pluck().get(id)
      if (res.status !== 200 || res.body.meta.total !== truth)
        return `${path}: total ${res.body?.meta?.total} (status ${res.status}), count(*) ${truth}`
    }
  }
  return null
}

const noteMd = (archived: boolean) => `---\ntitle: Imported\narchived: ${archived}\n---\nimported text\n`

t.test('the counters equal count(*) after any sequence of writes through the API, purge and rolled-back transactions', async (t) => {
  const b = await bench(t)
  const db = b.app.hearth.db as Db
  const other = await b.asOther()
  const userOf = async (call: Call) => {
    const id = (await call('POST', '/notes', { content: 'whose' })).body.data.id
    return db.prepare('SELECT user_id FROM notes WHERE id = ?').pluck().get(id) as string
  }
  const users = [
    { call: b.call, id: await userOf(b.call) },
    { call: other, id: await userOf(other) },
  ]
  const ids: Record<'notes' | 'contacts', string[]> = { notes: [], contacts: [] }
  // Purge and the rolled-back transaction run on a second connection, as the CLI would: the app's list
  // cache sees its commits through data_version (on the app's own connection only its service may write).
  const second = openDatabase(join(b.app.dataDir, 'hearth.db'))
  t.teardown(() => second.close())
  const service = (at: number) => createRecordsService({ validator: compileCheck, db: second, events: b.app.hearth.events, now: () => at })

  const pick = (resource: 'notes' | 'contacts', i: number) => ids[resource][i % Math.max(1, ids[resource].length)]
  const op = fc.record({
    kind: fc.constantFrom(
      'create',
      'createArchived',
      'contact',
      'archive',
      'unarchive',
      'patchArchived',
      'patchText',
      'trash',
      'trashContact',
      'restore',
      'restoreContact',
      'erase',
      'eraseContact',
      'import',
      'purge',
      'rollback',
      'staleWrite',
    ),
    user: fc.nat(1),
    target: fc.nat(50),
    flag: fc.boolean(),
  })

  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
      for (const { kind, user, target, flag } of ops) {
        const { call, id: userId } = users[user] as { call: Call; id: string }
        const note = pick('notes', target)
        const contact = pick('contacts', target)
        switch (kind) {
          case 'create':
          case 'createArchived': {
            const res = await call('POST', '/notes', { content: `note ${target}`, pinned: flag })
            ids.notes.push(res.body.data.id)
            if (kind === 'createArchived') await call('POST', `/notes/${res.body.data.id}/archive`)
            break
          }
          case 'contact':
            ids.contacts.push((await call('POST', '/contacts', { display_name: `Contact ${target}` })).body.data.id)
            break
          case 'archive':
          case 'unarchive':
            // Another user's id or a trashed note: a 404, which must move nothing.
            if (note) await call('POST', `/notes/${note}/${kind}`)
            break
          case 'patchArchived':
            if (note) await call('PATCH', `/notes/${note}`, { archived: flag })
            break
          case 'patchText':
            if (note) await call('PATCH', `/notes/${note}`, { content: `edited ${target}`, tags: flag ? ['x'] : [] })
            break
          case 'trash':
          case 'erase':
            if (note) await call('DELETE', `/notes/${note}${kind === 'erase' ? '?permanent=true' : ''}`)
            break
          case 'trashContact':
          case 'eraseContact':
            if (contact) await call('DELETE', `/contacts/${contact}${kind === 'eraseContact' ? '?permanent=true' : ''}`)
            break
          case 'restore':
            if (note) await call('POST', `/notes/${note}/restore`)
            break
          case 'restoreContact':
            if (contact) await call('POST', `/contacts/${contact}/restore`)
            break
          case 'import': {
            const body = upload('imported.md', noteMd(flag), 'text/markdown')
            const res = await b.app.inject({
              method: 'POST',
              url: '/api/v1/notes/import',
              payload: body.payload,
              headers: { ...body.headers, authorization: `Bearer ${b.token}` },
            })
            t.equal(res.statusCode, 200, 'import')
            ids.notes.push(...(res.json().data.ids as string[]))
            break
          }
          case 'purge':
            // Everything in the trash, for every user, as the hourly job does 30 days later.
            b.clock.advance(1)
            service(b.clock.ms + 31 * DAY).purgeTrash(30)
            break
          case 'rollback':
            // A write whose transaction fails after its statements ran (what a failed group commit undoes).
            t.throws(() =>
              second.transaction(() => {
                second
                  .prepare(
                    `INSERT INTO notes (id, user_id, content, archived, created_at, updated_at, deleted_at) VALUES (?, ?, 'x', ?, 'a', 'a', ?)`,
                  )
                  .run(`rolled-back-${target}`, userId, flag ? 1 : 0, flag ? null : 'a')
                if (note) second.prepare('UPDATE notes SET archived = 1 - archived, deleted_at = NULL WHERE id = ?').run(note)
                throw new Error('rolled back')
              })(),
            )
            break
          case 'staleWrite':
            // If-Match with a version that never was: 412, nothing written.
            if (note) await call('PATCH', `/notes/${note}`, { archived: flag }, { 'if-match': '"999999"' })
            break
        }
      }
      const { kept, counted } = countsAndTruth(db)
      if (JSON.stringify(kept) !== JSON.stringify(counted)) {
        t.same(kept, counted, 'records_counts equals count(*)')
        return false
      }
      const differ = await totalsDiffer(db, users)
      if (differ) t.fail(differ)
      return differ === null
    }),
    { numRuns: 30, seed: 11 },
  )
  t.ok(ids.notes.length > 0 && ids.contacts.length > 0, 'the runs wrote notes and contacts')
  t.pass('records_counts equals count(*) after every run')
})

t.test('filters the counters cannot answer still count: tag, pinned, source, search, company', async (t) => {
  const { call } = await bench(t)
  for (let i = 0; i < 4; i++) {
    await call('POST', '/notes', { content: `alpha ${i}`, tags: i % 2 ? ['odd'] : [], pinned: i === 0 })
  }
  await call('POST', '/contacts', { display_name: 'Ann', company: 'Acme' })
  await call('POST', '/contacts', { display_name: 'Bob' })
  t.equal((await call('GET', '/notes?limit=1')).body.meta.total, 4)
  t.equal((await call('GET', '/notes?limit=1&tag=odd')).body.meta.total, 2)
  t.equal((await call('GET', '/notes?limit=1&pinned=true')).body.meta.total, 1)
  t.equal((await call('GET', '/notes?limit=1&source=local')).body.meta.total, 4)
  t.equal((await call('GET', '/notes?limit=1&source=elsewhere')).body.meta.total, 0)
  t.equal((await call('GET', '/notes?limit=1&search=alpha')).body.meta.total, 4)
  t.equal((await call('GET', '/contacts?limit=1&company=acme')).body.meta.total, 1)
  t.equal((await call('GET', '/contacts?limit=1')).body.meta.total, 2)
})

t.test('migration 007 back-fills the counters from existing records; erasing a user leaves no counter', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-counts-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const db = openDatabase(join(dir, 'hearth.db'))
  t.teardown(() => db.close())
  migrate(db, 'core', readMigrations(new URL('../../../core/auth/migrations/', import.meta.url)))
  const all = readMigrations(new URL('../migrations/', import.meta.url))
  t.same(
    migrate(
      db,
      'records',
      all.filter((m) => m.version < 7),
    ),
    [1, 2, 3, 4, 5, 6],
  )
  const user = db.prepare(
    `INSERT INTO users (id, email, password_hash, role, password_changed_at, created_at, updated_at) VALUES (?, ?, 'x', 'user', 0, 'a', 'a')`,
  )
  user.run('u1', 'u1@example.test')
  user.run('u2', 'u2@example.test')
  const note = db.prepare(
    `INSERT INTO notes (id, user_id, content, archived, created_at, updated_at, deleted_at) VALUES (?, ?, 'x', ?, 'a', 'a', ?)`,
  )
  const contact = db.prepare(
    `INSERT INTO contacts (id, user_id, display_name, created_at, updated_at, deleted_at) VALUES (?, ?, 'c', 'a', 'a', ?)`,
  )
  let n = 0
  for (const [userId, archived, deleted, times] of [
    ['u1', 0, null, 5],
    ['u1', 1, null, 3],
    ['u1', 0, 'z', 2],
    ['u1', 1, 'z', 1],
    ['u2', 0, null, 4],
  ] as const) {
    for (let i = 0; i < times; i++) note.run(`n${n++}`, userId, archived, deleted)
  }
  for (const [userId, deleted, times] of [
    ['u1', null, 2],
    ['u2', 'z', 3],
  ] as const) {
    for (let i = 0; i < times; i++) contact.run(`c${n++}`, userId, deleted)
  }

  t.same(
    migrate(
      db,
      'records',
      all.filter((m) => m.version <= 7),
    ),
    [7],
  )
  const { kept, counted } = countsAndTruth(db)
  t.same(kept, counted, 'back-filled counters equal count(*)')
  t.same(kept, [
    'u1 contacts 0 0 2',
    'u1 notes 0 0 5',
    'u1 notes 0 1 3',
    'u1 notes 1 0 2',
    'u1 notes 1 1 1',
    'u2 contacts 1 0 3',
    'u2 notes 0 0 4',
  ])

  note.run('later', 'u2', 1, null)
  t.same(countsAndTruth(db).kept, countsAndTruth(db).counted, 'the triggers keep them from there')
  db.prepare('DELETE FROM users WHERE id = ?').run('u2')
  t.same(
    db.prepare(`SELECT count(*) FROM records_counts WHERE user_id = 'u2'`).pluck().get(),
    0,
    "the user's records and counters are gone",
  )
})

t.test('a small trash or archive read through its partial index lists as the plain query does, in every sort', async (t) => {
  const { call, clock } = await bench(t)
  // Every record carries the tag `all`: the same listing with &tag=all takes the unhinted path.
  const titles = ['pear', 'Apple', 'fig', 'apple', 'kiwi', 'Fig', 'date', 'plum']
  const notes: string[] = []
  const contacts: string[] = []
  for (const [i, title] of titles.entries()) {
    clock.advance(i % 3 ? 1000 : 0)
    notes.push((await call('POST', '/notes', { title, content: 'x', tags: ['all'] })).body.data.id)
    contacts.push((await call('POST', '/contacts', { display_name: title, company: i % 2 ? 'Acme' : null, tags: ['all'] })).body.data.id)
  }
  for (const i of [0, 2, 3, 5]) await call('POST', `/notes/${notes[i]}/archive`)
  for (const i of [1, 3, 4, 6]) {
    await call('DELETE', `/notes/${notes[i]}`)
    await call('DELETE', `/contacts/${contacts[i]}`)
  }
  const views = [
    // A sorted search walks the sort index with "not outside the view" in place of the state.
    '/notes?search=x',
    '/notes?search=x&include_deleted=true',
    '/notes?search=x&archived=true',
    '/contacts?search=pear',
    '/contacts?search=fig&include_deleted=true',
    '/notes?only_deleted=true',
    '/notes?archived=true',
    '/notes?archived=true&include_deleted=true',
    '/notes?only_deleted=true&archived=true',
    '/notes?only_deleted=true&archived=false',
    '/contacts?only_deleted=true',
  ]
  const sorts = {
    notes: ['', '&sort=title&order=asc', '&sort=title&order=desc', '&sort=created_at&order=asc', '&sort=updated_at&order=asc'],
    contacts: ['', '&sort=display_name&order=desc', '&sort=company&order=asc', '&sort=company&order=desc', '&sort=updated_at&order=desc'],
  }
  for (const view of views) {
    // A search without sort is ranked by relevance (no keyset): the sorted ones are the point here.
    for (const sort of sorts[view.startsWith('/notes') ? 'notes' : 'contacts'].filter((s) => s || !view.includes('search='))) {
      const [hinted, plain] = [await call('GET', `${view}${sort}`), await call('GET', `${view}${sort}&tag=all`)]
      t.equal(hinted.status, 200, `${view}${sort}`)
      t.ok(hinted.body.data.length > 0, `${view}${sort} lists something`)
      t.same(
        hinted.body.data.map((r: { id: string }) => r.id),
        plain.body.data.map((r: { id: string }) => r.id),
        `${view}${sort}`,
      )
      t.equal(hinted.body.meta.total, plain.body.meta.total)
      const second = await call('GET', `${view}${sort}&limit=1&after=${hinted.body.data[0].id}`)
      t.same(second.body.data[0]?.id, hinted.body.data[1]?.id, `${view}${sort} after`)
    }
  }
})
