import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { call, cli, converse, freePort, quietEnv, startDaemon, tempDir } from '../cli-process.js'

/** What an admin at the appliance's terminal does after `hearth setup`, through real CLI processes. */

const OWNER = ['setup', '--email', 'owner@admin.test', '--password', 'owner password 1']
const login = async (base: string, email: string, password: string) =>
  (await call(base, 'POST', '/auth/login', undefined, { email, password })).status

/** No stack trace: one line on stderr, starting "hearth: ". */
const oneLine = (t: Test, stderr: string) => {
  t.equal(stderr.trimEnd().split('\n').length, 1, `one line: ${stderr}`)
  t.match(stderr, /^hearth: /)
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
}

t.test('keys create --scope dav: a key a phone signs in to /dav/ with', async (t) => {
  const dataDir = join(tempDir(t), 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(OWNER, env)).code, 0)
  const offline = await cli(['keys', 'create', '--scope', 'dav', '--label', 'phone', '--json'], env)
  t.equal(offline.code, 0, offline.stderr)
  t.match(JSON.parse(offline.stdout), { scope: 'dav', label: 'phone', key: /\S{20,}/ })
  const wrong = await cli(['keys', 'create', '--scope', 'phone'], env)
  t.equal(wrong.code, 2, 'an unknown scope is a usage error')
  t.match(wrong.stderr, /--scope must be one of agent, system, sync, dav/)

  const daemon = await startDaemon(t, dataDir)
  const made = await cli(['keys', 'create', '--scope', 'dav', '--json'], env)
  t.equal(made.code, 0, made.stderr)
  const { key, scope } = JSON.parse(made.stdout) as { key: string; scope: string }
  t.equal(scope, 'dav', 'through the running daemon too')
  const dav = (password: string) =>
    fetch(`${daemon.base.replace(/\/api\/v1$/, '')}/dav/`, {
      method: 'PROPFIND',
      headers: { authorization: `Basic ${Buffer.from(`owner@admin.test:${password}`).toString('base64')}`, depth: '0' },
    })
  t.equal((await dav(key)).status, 207, 'the key signs in to DAV')
  t.equal((await dav('not the key')).status, 401)
})

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

t.test("doctor reads the daemon's settings: the running daemon's environment, else the unit's", async (t) => {
  const dataDir = join(tempDir(t), 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(OWNER, env)).code, 0)
  const [daemonHttp, unitHttp, unitHttps] = await Promise.all([freePort(), freePort(), freePort()])
  const findings = async (extra: Record<string, string> = {}) =>
    JSON.parse((await cli(['doctor', '--json'], { ...env, ...extra })).stdout) as Array<{ check: string; message: string }>
  const has = (list: Array<{ check: string }>, check: string) => list.some((f) => f.check === check)

  const daemon = await startDaemon(t, dataDir, { HEARTH_PROXY_HTTP_PORT: String(daemonHttp) })
  let d = await findings()
  t.match(d[0], { check: 'settings', message: new RegExp(`running daemon's environment \\(pid ${daemon.pid}\\)`) })
  t.ok(has(d, `port ${daemonHttp}/tcp`), "the daemon's HTTP port is checked, not this shell's default")
  await daemon.stop()

  const dir = tempDir(t)
  writeFileSync(join(dir, 'settings.env'), `# the admin's settings\nHEARTH_PROXY_HTTPS_PORT=${unitHttps}\n`)
  writeFileSync(
    join(dir, 'hearth.service'),
    `[Unit]\nDescription=test\n\n[Service]\nUser=hearth\nEnvironment=HEARTH_DATA_DIR=${dataDir}\n` +
      `Environment="HEARTH_PROXY_HTTP_PORT=${unitHttp}" HEARTH_LOG_LEVEL=warn\n` +
      `EnvironmentFile=-${join(dir, 'settings.env')}\nEnvironmentFile=-${join(dir, 'absent.env')}\nExecStart=/bin/true\n`,
  )
  d = await findings({ HEARTH_UNIT_FILE: join(dir, 'hearth.service') })
  t.match(d[0], { check: 'settings', message: /the unit's settings \(.*hearth\.service, .*settings\.env\)/ })
  t.ok(has(d, `port ${unitHttp}/tcp`), "the unit's Environment= is read")
  t.ok(has(d, `port ${unitHttps}/tcp`), "the unit's EnvironmentFile= is read")
  d = await findings()
  t.match(d[0], { check: 'settings', message: /this shell's environment/ })
})
