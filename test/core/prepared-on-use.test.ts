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

t.test('preparedOnUse takes functions preparing typed statements, beside SQL, each called on first use, once', async (t) => {
  const db = new Database(':memory:')
  t.teardown(() => db.close())
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)')
  const called: string[] = []
  const s = preparedOnUse(db, {
    insert: 'INSERT INTO items (name) VALUES (?)',
    byId: () => {
      called.push('byId')
      return db.prepare<[number], { id: number; name: string }>('SELECT id, name FROM items WHERE id = ?')
    },
    broken: () => db.prepare<[], { n: number }>('SELECT count(*) AS n FROM nowhere'),
  })
  t.same(called, [], 'no function called when the store is built')
  t.same(Object.keys(s), ['insert', 'byId', 'broken'])
  s.insert.run('a')
  // The row type is the one declared in the function: `name` is a string without a cast.
  const row: { id: number; name: string } | undefined = s.byId.get(1)
  t.equal(row?.name.toUpperCase(), 'A')
  t.equal(s.byId.get(2), undefined)
  t.same(called, ['byId'], 'called once, on first use')
  t.equal(s.byId, s.byId, 'the same statement from then on')
  // @ts-expect-error the parameters are the declared ones: a string is refused where the id is a number
  const refused = () => s.byId.get('1')
  t.type(refused, 'function')
  t.throws(() => s.broken.get(), /no such table: nowhere/, 'a wrong statement fails on its first use')
})
