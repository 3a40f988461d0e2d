import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { call, cli, converse, quietEnv, startDaemon, tempDir } from '../cli-process.js'

/** `hearth users create` and `set-password` at a terminal, through real CLI processes. */
const OWNER = ['setup', '--email', 'owner@admin.test', '--password', 'owner password 1']
const login = async (base: string, email: string, password: string) =>
  (await call(base, 'POST', '/auth/login', undefined, { email, password })).status

/** No stack trace: one line on stderr, starting "hearth: ". */
const oneLine = (t: Test, stderr: string) => {
  t.equal(stderr.trimEnd().split('\n').length, 1, `one line: ${stderr}`)
  t.match(stderr, /^hearth: /)
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
}

t.test('users create and set-password: asked on a terminal, never echoed; the API signs the user in', async (t) => {
  const dataDir = join(tempDir(t), 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(OWNER, env)).code, 0)
  const first = 'first password typed'
  const made = await converse(['users', 'create', 'ann@admin.test', '--role', 'admin', '--name', 'Ann'], env, [
    [/Password: /, first],
    [/Password again: /, first],
  ])
  t.equal(made.code, 0, made.screen)
  t.match(made.screen, /ann@admin\.test\tadmin/)
  t.notOk(made.screen.includes(first), 'the password never shows')

  const noTerminal = await cli(['users', 'create', 'bob@admin.test'], env)
  t.equal(noTerminal.code, 2, 'without a terminal or --password-file: a usage error')
  oneLine(t, noTerminal.stderr)
  t.match(noTerminal.stderr, /--password-file/)
  const bad = await cli(['users', 'create', 'not-an-email'], env)
  t.equal(bad.code, 1)
  oneLine(t, bad.stderr)

  const daemon = await startDaemon(t, dataDir)
  t.equal(await login(daemon.base, 'ann@admin.test', first), 200, 'made without the daemon, signs in through it')
  const file = join(tempDir(t), 'pw')
  writeFileSync(file, 'bob password from a file\n')
  const bob = await cli(['users', 'create', 'bob@admin.test', '--password-file', file], env)
  t.equal(bob.code, 0, bob.stderr)
  t.equal(await login(daemon.base, 'bob@admin.test', 'bob password from a file'), 200, 'made through the daemon')
  const twice = await cli(['users', 'create', 'bob@admin.test', '--password-file', file], env)
  t.equal(twice.code, 1, 'an email in use')
  oneLine(t, twice.stderr)

  const second = 'second password typed'
  const set = await converse(['users', 'set-password', 'ann@admin.test'], env, [
    [/Password: /, second],
    [/Password again: /, second],
  ])
  t.equal(set.code, 0, set.screen)
  t.notOk(set.screen.includes(second))
  t.equal(await login(daemon.base, 'ann@admin.test', first), 401, 'the old password no longer works')
  t.equal(await login(daemon.base, 'ann@admin.test', second), 200, 'the new one does')
  const differ = await converse(['users', 'set-password', 'ann@admin.test'], env, [
    [/Password: /, 'one thing typed here'],
    [/Password again: /, 'another thing typed'],
  ])
  t.equal(differ.code, 2)
  t.match(differ.screen, /the passwords differ/)
  t.equal(await login(daemon.base, 'ann@admin.test', second), 200, 'a mistyped confirmation changes nothing')
  const nobody = await cli(['users', 'set-password', 'nobody@admin.test', '--password-file', file], env)
  t.equal(nobody.code, 1)
  oneLine(t, nobody.stderr)
})
