import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { cli, quietEnv, tempDir } from '../cli-process.js'

/** `hearth backup list`, and an admin's mistakes answered in one line, through real CLI processes. */
const OWNER = ['setup', '--email', 'owner@admin.test', '--password', 'owner password 1']
/** No stack trace: one line on stderr, starting "hearth: ". */
const oneLine = (t: Test, stderr: string) => {
  t.equal(stderr.trimEnd().split('\n').length, 1, `one line: ${stderr}`)
  t.match(stderr, /^hearth: /)
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
}

t.test('backup list, and a backup to a missing folder: one line with the fix, exit 1', async (t) => {
  const dataDir = join(tempDir(t), 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(OWNER, env)).code, 0)
  const none = await cli(['backup', 'list'], env)
  t.equal(none.code, 0)
  t.match(none.stdout, /no scheduled backups in .*backups/)
  mkdirSync(join(dataDir, 'backups'))
  for (const name of ['hearth-20261101T033000Z.tar.gz', 'hearth-20261102T033000Z.tar.gz.enc', 'notes.txt'])
    writeFileSync(join(dataDir, 'backups', name), 'x')
  const listed = await cli(['backup', 'list', '--json'], env)
  t.equal(listed.code, 0, listed.stderr)
  t.match(JSON.parse(listed.stdout), [
    { name: 'hearth-20261102T033000Z.tar.gz.enc', encrypted: true, created_at: '2026-11-02T03:30:00Z' },
    { name: 'hearth-20261101T033000Z.tar.gz', encrypted: false },
  ])
  t.equal(JSON.parse(listed.stdout).length, 2, 'other files are not backups')

  const missing = await cli(['backup', join(tempDir(t), 'missing', 'dir', 'x.tgz')], env)
  t.equal(missing.code, 1)
  oneLine(t, missing.stderr)
  t.match(missing.stderr, /no folder .*missing\/dir: create it first/)
  const passphrase = await cli(['backup', join(dataDir, 'x.tgz'), '--passphrase-file', '/missing/pass'], env)
  t.equal(passphrase.code, 1)
  oneLine(t, passphrase.stderr)
  t.match(passphrase.stderr, /\/missing\/pass: no such file or folder/)
})
