import Database from 'better-sqlite3'
import t from 'tap'
import { preparedOnUse } from '../../core/plugin-api.js'

t.test('preparedOnUse prepares each statement on its first use, once, with its SQL', async (t) => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)')
  const prepare = db.prepare.bind(db)
  const prepared: string[] = []
  db.prepare = ((sql: string) => {
    prepared.push(sql)
    return prepare(sql)
  }) as typeof db.prepare
  const s = preparedOnUse(db, {
    insert: 'INSERT INTO items (name) VALUES (?)',
    byName: 'SELECT id, name FROM items WHERE name = ?',
    broken: 'SELECT name FROM nowhere',
  })
  t.same(prepared, [], 'nothing prepared when the store is built')
  t.same(Object.keys(s), ['insert', 'byName', 'broken'])
  s.insert.run('a')
  s.insert.run('b')
  t.same(prepared, ['INSERT INTO items (name) VALUES (?)'], 'prepared once, on first use')
  t.equal(s.insert, s.insert, 'the same statement from then on')
  t.same(s.byName.get('b'), { id: 2, name: 'b' })
  t.equal(s.byName.source, 'SELECT id, name FROM items WHERE name = ?')
  t.throws(() => s.broken.all(), /no such table: nowhere/, 'a wrong statement fails on its first use')
})
