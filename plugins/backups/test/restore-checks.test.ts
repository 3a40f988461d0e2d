import { chownSync, copyFileSync, readdirSync, statSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { CLI, call, cli, quietEnv, startDaemon, tempDir } from '../../../test/cli-process.js'
import { sourcePath } from '../../../test/paths.js'
import { readMigrations } from '../../../core/db/migrate.js'

/** The core's newest schema version: the manifest names it, a newer one is refused. */
const CORE_SCHEMA = readMigrations(new URL('../../../core/auth/migrations/', import.meta.url)).length

const fixture = (name: string) => sourcePath(import.meta.url, `fixtures/${name}`)

async function withOwner(t: Test, root: string) {
  const env = quietEnv(join(root, 'data'))
  t.equal((await cli(['setup', '--email', 'owner@checks.test', '--password', 'owner password 1'], env)).code, 0)
  return env
}

t.test('an encrypted backup restores with its passphrase only; a damaged one is refused', async (t) => {
  const root = tempDir(t)
  const env = await withOwner(t, root)
  const pass = join(root, 'pass')
  writeFileSync(pass, 'correct horse\n')
  const archive = join(root, 'enc.tar.gz.enc')
  const made = await cli(['backup', archive, '--passphrase-file', pass], env)
  t.equal(made.code, 0, made.stderr)
  t.equal(readFileSync(archive).subarray(0, 8).toString(), 'HEARTHBK', 'the archive is encrypted')
  t.notOk(readFileSync(archive).includes(Buffer.from('HEARTH_SYSTEM_TOKEN')), 'no secret in clear')
  t.equal((await cli(['restore', archive], env)).code, 2, 'no passphrase and no terminal: usage error')

  // No daemon lock, but a process (this test) has the database open: refused, naming it.
  const holder = new Database(join(env.HEARTH_DATA_DIR as string, 'hearth.db'))
  holder.prepare('SELECT 1').get()
  const busy = await cli(['restore', archive, '--passphrase-file', pass], env)
  holder.close()
  t.equal(busy.code, 3, 'refused while another process has the database open')
  t.match(busy.stderr, new RegExp(`the database is open in node \\(pid ${process.pid}\\)`))

  writeFileSync(join(root, 'wrong'), 'wrong horse\n')
  const wrong = await cli(['restore', archive, '--passphrase-file', join(root, 'wrong')], env)
  t.equal(wrong.code, 4)
  t.match(wrong.stderr, /wrong passphrase/)

  const bytes = readFileSync(archive)
  const flipped = Buffer.from(bytes)
  flipped[flipped.length - 40] = (flipped[flipped.length - 40] as number) ^ 1
  writeFileSync(join(root, 'flipped'), flipped)
  t.equal((await cli(['restore', join(root, 'flipped'), '--passphrase-file', pass], env)).code, 4, 'a flipped bit is refused')
  writeFileSync(join(root, 'cut'), bytes.subarray(0, bytes.length - 100))
  const cut = await cli(['restore', join(root, 'cut'), '--passphrase-file', pass], env)
  t.equal(cut.code, 4, 'a truncated archive is refused')
  t.same(
    readdirSync(root).filter((n) => n.includes('before-restore')),
    [],
    'nothing was set aside by the refused restores',
  )

  const ok = await cli(['restore', archive, '--passphrase-file', pass], env)
  t.equal(ok.code, 0, ok.stderr)
  t.match((await cli(['users', 'list'], env)).stdout, /owner@checks\.test/)
})

t.test('a plain archive: checksums and integrity_check are verified, a newer schema is refused', async (t) => {
  const root = tempDir(t)
  const env = await withOwner(t, root)
  const archive = join(root, 'plain.tar.gz')
  t.equal((await cli(['backup', archive], env)).code, 0)
  const listing = await new Promise<string>((resolve) =>
    import('node:child_process').then(({ execFile }) => execFile('tar', ['-tzf', archive], (_e, out) => resolve(out))),
  )
  t.same(
    listing.trim().split('\n'),
    ['manifest.json', 'hearth.db', 'hearth.env'],
    'tar reads it: manifest first, then the database and secrets',
  )

  // A database whose bytes differ from the manifest's checksum: rebuilt archive with a changed page.
  const { unpackBackup } = await import('../extract.js')
  const staged = tempDir(t)
  const { manifest } = await unpackBackup(archive, staged)
  t.match(manifest, {
    format: 'hearth-backup',
    hearth_version: /^\d+\.\d+\.\d+/,
    schema: { core: CORE_SCHEMA },
    files: { 'hearth.db': { sha256: /^[0-9a-f]{64}$/ } },
  })

  const notABackup = join(root, 'junk')
  writeFileSync(notABackup, 'hello')
  t.equal((await cli(['restore', notABackup], env)).code, 4, 'a file that is no backup is refused')

  // A backup from the future: a plugin's schema beyond this code's migrations.
  const db = new Database(join(env.HEARTH_DATA_DIR as string, 'hearth.db'))
  db.prepare(
    "INSERT INTO schema_migrations (plugin, version, name, checksum, applied_at) VALUES ('core', 99, 'future', 'x', '2030-01-01')",
  ).run()
  db.close()
  const future = join(root, 'future.tar.gz')
  t.equal((await cli(['backup', future], env)).code, 0)
  const refused = await cli(['restore', future], env)
  t.equal(refused.code, 4)
  t.match(refused.stderr, `newer than this Hearth knows (core 99 > ${CORE_SCHEMA})`)

  // An archive whose database is not the one its manifest describes (one byte changed, sizes equal).
  const { tarEnd, tarHeader, tarPadding } = await import('../../../lib/archive/tar.js')
  const dbBytes = readFileSync(join(staged, 'hearth.db'))
  const changed = Buffer.from(dbBytes)
  changed[changed.length - 1] = (changed[changed.length - 1] as number) ^ 0xff
  const manifestBytes = Buffer.from(JSON.stringify(manifest))
  const entries: Array<[string, Buffer]> = [
    ['manifest.json', manifestBytes],
    ['hearth.db', changed],
    ['hearth.env', readFileSync(join(staged, 'hearth.env'))],
  ]
  const tar = Buffer.concat([
    ...entries.flatMap(([name, body]) => [tarHeader(name, body.length, 0), body, tarPadding(body.length)]),
    tarEnd(),
  ])
  const tampered = join(root, 'tampered.tar.gz')
  writeFileSync(tampered, gzipSync(tar))
  const mismatch = await cli(['restore', tampered], env)
  t.equal(mismatch.code, 4, 'a file that does not match its checksum is refused')
  t.match(mismatch.stderr, /hearth\.db does not match its checksum/)

  // A damaged database: the cell pointers of the users table's root page overwritten. integrity_check catches it.
  const broken = join(root, 'broken.db')
  copyFileSync(join(staged, 'hearth.db'), broken)
  const probe = new Database(broken, { readonly: true })
  const { rootpage } = probe.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'users'").get() as { rootpage: number }
  probe.close()
  const raw = readFileSync(broken)
  raw.fill(0xff, (rootpage - 1) * 4096 + 8, (rootpage - 1) * 4096 + 40)
  writeFileSync(broken, raw)
  const damaged = await cli(['restore', broken], env)
  t.equal(damaged.code, 4, 'a database failing integrity_check is refused')
  t.match(damaged.stderr, /integrity_check|malformed/)
})

t.test("the previous release's backup (commit 4dd342a) restores and migrates forward", async (t) => {
  const root = tempDir(t)
  const legacy = join(root, 'prev.db')
  writeFileSync(legacy, gunzipSync(readFileSync(fixture('prev-release-4dd342a.db.gz'))))
  const dataDir = join(root, 'data')
  const env = quietEnv(dataDir)
  const restored = await cli(['restore', legacy, '--secrets', fixture('prev-release-4dd342a.env')], env)
  t.equal(restored.code, 0, restored.stderr)
  t.match(restored.stdout, /a bare database \(previous release\)/)
  t.match(restored.stdout, /schema: core 1, dns 1, proxy 3, records 1/)
  t.equal(
    readFileSync(join(dataDir, 'hearth.env'), 'utf8'),
    readFileSync(fixture('prev-release-4dd342a.env'), 'utf8'),
    'the secrets given are used',
  )

  const daemon = await startDaemon(t, dataDir)
  const login = await call(daemon.base, 'POST', '/auth/login', undefined, { email: 'owner@prev.test', password: 'previous release pw' })
  t.equal(login.status, 200, "the previous release's owner signs in")
  const token = (login.json.data as { accessToken: string }).accessToken
  const notes = await call(daemon.base, 'GET', '/notes?tag=prev', token)
  t.same(
    (notes.json.data as Array<{ title: string }>).map((n) => n.title).sort(),
    ['Note 1 from 4dd342a', 'Note 2 from 4dd342a', 'Note 3 from 4dd342a'],
    'its notes are there',
  )
  t.equal(
    (await call(daemon.base, 'GET', '/notes', 'clk_5bc6585a1291226d1204f0b638d139c4')).status,
    200,
    'its API key (an agent key, no maker recorded) works',
  )
  await daemon.stop()
  const db = new Database(join(dataDir, 'hearth.db'), { readonly: true })
  const records = db.prepare("SELECT MAX(version) AS v FROM schema_migrations WHERE plugin = 'records'").get() as { v: number }
  db.close()
  t.ok(records.v > 1, `records migrated forward from 1 to ${records.v}`)
})

t.test('on a terminal the progress is a bar redrawn in place', async (t) => {
  const root = tempDir(t)
  const env = await withOwner(t, root)
  const archive = join(root, 'tty.tar.gz')
  // script(1) gives the CLI a pseudo-terminal, as an operator's shell would.
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      'script',
      ['-qec', `${process.execPath} ${CLI} backup ${archive}`, '/dev/null'],
      { env: { ...process.env, ...env, COLUMNS: '100' } },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    ),
  )
  t.match(out, /\rdatabase \[#+\.*\] +\d+%/, 'a bar of # redrawn with a carriage return')
  t.match(out, /\rarchive: done/)
  t.match(out, /backed up to /)
})

t.test(
  "restore run as root keeps the files the daemon user's",
  { skip: process.getuid?.() !== 0 ? 'needs root to change owners' : false },
  async (t) => {
    const root = tempDir(t)
    const env = await withOwner(t, root)
    const dataDir = env.HEARTH_DATA_DIR as string
    const archive = join(root, 'owned.tar.gz')
    t.equal((await cli(['backup', archive], env)).code, 0)
    // The data folder belongs to the daemon's user (nobody here), as /var/lib/hearth belongs to hearth.
    for (const p of [dataDir, ...readdirSync(dataDir).map((n) => join(dataDir, n))]) chownSync(p, 65534, 65534)
    const r = await cli(['restore', archive], env)
    t.equal(r.code, 0, r.stderr)
    for (const name of ['.', 'hearth.db', 'hearth.env', 'restored-from.json'])
      t.equal(statSync(join(dataDir, name)).uid, 65534, `${name} belongs to the daemon's user`)
  },
)
