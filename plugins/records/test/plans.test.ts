import t from 'tap'
import { compileCheck } from '../../../core/validation.js'
import { createRecordsService } from '../service.js'
import { bench } from './records-app.js'

/**
 * Statements that read rows by a list of sequence numbers (a page's keys, the records created since
 * a cached listing) must find each row by its primary key. Without statistics SQLite may instead
 * walk the user's whole index on the `user_id = ?` term and test every entry against the list:
 * the same rows, but at 1,200,000 notes 0.3-1.2 s for a page of 20. The plans are the
 * same on a small database, so they are checked here on every such statement the records service
 * prepared while it created, listed and searched.
 */
t.test('rows read by sequence number are found by primary key', async (t) => {
  const b = await bench(t)
  await b.call('POST', '/notes', { content: 'probe' })
  const userId = b.events[0]?.userId as string
  const db = b.app.hearth.db
  const prepared = new Set<string>()
  const prepare = db.prepare.bind(db)
  db.prepare = ((sql: string) => {
    prepared.add(sql)
    return prepare(sql)
  }) as typeof db.prepare
  t.teardown(() => {
    db.prepare = prepare as typeof db.prepare
  })
  const service = createRecordsService({ validator: compileCheck, db, events: { emit: () => undefined as never }, now: () => b.clock.ms })
  for (const resource of ['notes', 'contacts'] as const) {
    const body = resource === 'notes' ? { content: 'alpha beta', tags: ['x'] } : { display_name: 'alpha beta' }
    service.list(userId, resource, { search: 'alpha', sort: 'updated_at' })
    service.list(userId, resource, { search: 'alpha' })
    service.list(userId, resource, resource === 'notes' ? { tag: ['x'] } : {})
    service.list(userId, resource, { limit: 1 })
    service.create(userId, resource, body)
    service.list(userId, resource, { search: 'alpha', sort: 'updated_at' })
    service.list(userId, resource, { search: 'alpha' })
    service.list(userId, resource, resource === 'notes' ? { tag: ['x'] } : {})
    service.list(userId, resource, { limit: 1 })
  }
  const bySeq = [...prepared].filter((sql) => /json_each\(\?\)/.test(sql) && /seq (=|IN)/.test(sql))
  t.ok(bySeq.length >= 3, `statements reading by sequence number: ${bySeq.length}`)
  for (const sql of bySeq) {
    const plan = explain(db, sql)
    t.match(plan, /SEARCH t USING INTEGER PRIMARY KEY/, sql)
    t.notMatch(plan, /USING (COVERING )?INDEX \w+_user_/, sql)
  }
})

/** EXPLAIN QUERY PLAN of a statement whose parameters are unknown here: as many NULLs as it takes. */
function explain(db: { prepare(sql: string): { all(...args: unknown[]): unknown[] } }, sql: string): string {
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${sql}`)
  for (let n = 0; n < 40; n++) {
    try {
      return (stmt.all(...Array.from({ length: n }, () => null)) as Array<{ detail: string }>).map((r) => r.detail).join(' | ')
    } catch (err) {
      if (!(err instanceof RangeError)) throw err
    }
  }
  throw new Error(`no parameter count fits ${sql}`)
}
