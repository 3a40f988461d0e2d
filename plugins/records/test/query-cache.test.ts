import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import t from 'tap'
import { ExternalWrites } from '../engine/external-writes.js'
import { QueryCache, type Written } from '../engine/query-cache.js'

/**
 * The query cache carries a value across the user's writes only through its Maintain function,
 * and only when every write since the value was computed is one of a single record it was told of.
 */
function setup(opts: { inTransaction?: () => boolean } = {}) {
  // A real database file: another connection's commit is what empties the cache.
  const file = join(mkdtempSync(join(tmpdir(), 'hearth-query-cache-')), 'hearth.db')
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.exec('CREATE TABLE elsewhere (v INTEGER)')
  t.teardown(() => db.close())
  const commitElsewhere = async () => {
    const other = new Database(file)
    other.prepare('INSERT INTO elsewhere VALUES (1)').run()
    other.close()
    // data_version is read at most once a millisecond.
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  const cache = new QueryCache(new ExternalWrites(db), () => 0, opts.inTransaction)
  const computed: string[] = []
  const carried: Written[][] = []
  const get = (value: string) =>
    cache.through(
      'u1',
      'k',
      () => {
        computed.push(value)
        return value
      },
      (old, created) => {
        carried.push(created)
        return `${old}+${created.map((c) => `${c.resource}${c.seq}`).join(',')}`
      },
    )
  return { cache, get, computed, carried, commitElsewhere }
}

t.test('writes of single records are carried by maintain; any other write recomputes', async (t) => {
  const { cache, get, computed, carried } = setup()
  t.equal(get('a'), 'a')
  cache.bump('u1', { resource: 'notes', seq: 7, created: true })
  cache.bump('u1', { resource: 'contacts', seq: 3, created: true })
  t.equal(get('b'), 'a+notes7,contacts3', 'both creations handed over at once')
  t.equal(get('c'), 'a+notes7,contacts3', 'then a plain hit')
  t.same(computed, ['a'])
  cache.bump('u1', { resource: 'notes', seq: 8, created: true })
  cache.bump('u1')
  t.equal(get('d'), 'd', 'a write not of one known record: computed again')
  cache.bump('u2')
  cache.bump('u2', { resource: 'notes', seq: 9, created: true })
  t.equal(get('e'), 'd', "another user's writes do not touch it")
  t.same(carried.length, 1)
})

t.test('a record written twice is handed over once, created only when every write of it was a creation', async (t) => {
  const { cache, get, carried } = setup()
  get('a')
  // A creation rolled back, its sequence number reused by the next one.
  cache.bump('u1', { resource: 'notes', seq: 5, created: true })
  cache.bump('u1', { resource: 'notes', seq: 5, created: true })
  t.equal(get('b'), 'a+notes5')
  cache.bump('u1', { resource: 'notes', seq: 6, created: true })
  cache.bump('u1', { resource: 'notes', seq: 6, created: false })
  cache.bump('u1', { resource: 'notes', seq: 5, created: false })
  cache.bump('u1', { resource: 'notes', seq: 7, created: false })
  cache.bump('u1', { resource: 'notes', seq: 7, created: true })
  get('c')
  t.same(carried, [
    [{ resource: 'notes', seq: 5, created: true }],
    [
      { resource: 'notes', seq: 6, created: false },
      { resource: 'notes', seq: 5, created: false },
      { resource: 'notes', seq: 7, created: false },
    ],
  ])
})

t.test('creations older than the log, a maintain that cannot tell, an open transaction: computed again', async (t) => {
  const many = setup()
  many.get('a')
  for (let i = 0; i < 33; i++) many.cache.bump('u1', { resource: 'notes', seq: i, created: true })
  t.equal(many.get('b'), 'b', '33 creations: the first fell out of the log')
  for (let i = 0; i < 32; i++) many.cache.bump('u1', { resource: 'notes', seq: 100 + i, created: true })
  t.match(many.get('c'), /^b\+notes100,/, '32 are still carried')

  let open = false
  const tx = setup({ inTransaction: () => open })
  tx.get('a')
  tx.cache.bump('u1', { resource: 'notes', seq: 1, created: true })
  open = true
  t.equal(tx.get('b'), 'b', 'inside a transaction (it could still roll back): computed, not carried')
  open = false
  t.equal(tx.get('c'), 'a+notes1', 'and the entry was left as it was')

  const external = setup()
  external.get('a')
  external.cache.bump('u1', { resource: 'notes', seq: 1, created: true })
  await external.commitElsewhere()
  t.equal(external.get('b'), 'b', 'a commit by another connection empties the cache')

  const unsure = setup().cache
  unsure.through('u1', 'k', () => 1)
  unsure.bump('u1', { resource: 'notes', seq: 1, created: true })
  t.equal(
    unsure.through(
      'u1',
      'k',
      () => 2,
      () => undefined,
    ),
    2,
    'maintain answered undefined',
  )
})
