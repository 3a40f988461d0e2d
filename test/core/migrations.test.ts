import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { migrate, readMigrations, schemaVersion } from '../../core/db/migrate.js'
import { backupDatabase, openDatabase } from '../../core/db/sqlite.js'
import { build, owner } from '../helper.js'

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-mig-'))
  mkdirSync(dir, { recursive: true })
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(dir, name), sql)
  return dir
}

t.test('migrations on an empty and on an existing database', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-db-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const db = openDatabase(join(dir, 'x.db'))
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  t.equal(db.pragma('foreign_keys', { simple: true }), 1)

  const v1 = folder({ '001-init.sql': 'CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT);' })
  t.same(migrate(db, 'p', readMigrations(v1)), [1], 'empty database: 001 applied')
  t.same(migrate(db, 'p', readMigrations(v1)), [], 'applied once')
  db.prepare("INSERT INTO t (a) VALUES ('kept')").run()

  const v2 = folder({
    '001-init.sql': 'CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT);',
    '002-more.sql': 'ALTER TABLE t ADD COLUMN b TEXT;',
    '010-late.sql': "UPDATE t SET b = 'x';",
  })
  t.same(migrate(db, 'p', readMigrations(v2)), [2, 10], 'existing database: only the new ones, in order')
  t.same(db.prepare('SELECT a, b FROM t').get(), { a: 'kept', b: 'x' }, 'data survives')
  t.equal(schemaVersion(db, 'p'), 10)

  const edited = folder({ '001-init.sql': 'CREATE TABLE t (id INTEGER PRIMARY KEY);' })
  t.throws(() => migrate(db, 'p', readMigrations(edited)), /changed after it was applied/)

  const failing = folder({
    '001-init.sql': 'CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT);',
    '002-more.sql': 'ALTER TABLE t ADD COLUMN b TEXT;',
    '010-late.sql': "UPDATE t SET b = 'x';",
    '011-ok.sql': 'CREATE TABLE u (id INTEGER);',
    '012-bad.sql': 'CREATE TABLE oops (;',
  })
  t.throws(() => migrate(db, 'p', readMigrations(failing)))
  t.equal(schemaVersion(db, 'p'), 10, 'a failing batch leaves nothing behind')
  t.notOk(db.prepare("SELECT name FROM sqlite_master WHERE name = 'u'").get(), '011 rolled back with 012')
  db.close()
})

t.test('online backup of a live database', async (t) => {
  const app = await build(t)
  await owner(app)
  const target = join(app.dataDir, 'backup', 'copy.db')
  const { pages } = await app.hearth.backup(target)
  t.ok(pages > 0)
  const copy = openDatabase(target)
  t.equal((copy.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n, 1, 'the backup holds the data')
  copy.close()
  await backupDatabase(app.hearth.db, join(app.dataDir, 'second.db'))
})

t.test('restarting on the same data folder keeps users and secrets', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-restart-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const first = await build(t, { dataDir })
  const o = await owner(first)
  const token = first.systemToken
  await first.close()
  const second = await build(t, { dataDir })
  t.equal(second.systemToken, token, 'system token kept in hearth.env')
  const res = await second.inject({ method: 'GET', url: '/api/v1/api-keys/mine', headers: { authorization: `Bearer ${o.token}` } })
  t.equal(res.statusCode, 200, 'sessions survive a restart')
})
