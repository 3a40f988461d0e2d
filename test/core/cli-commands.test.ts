import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { call, cli, quietEnv, startDaemon, tempDir } from '../cli-process.js'

t.test('with the daemon stopped: setup, users, keys, config and migrate work on the database', async (t) => {
  const env = quietEnv(join(tempDir(t), 'data'))
  const noPassword = await cli(['setup', '--email', 'owner@cli.test'], env)
  t.equal(noPassword.code, 2, 'no password and no terminal: usage error')
  const bad = await cli(['setup', '--email', 'not-an-email', '--password', 'long enough pw'], env)
  t.equal(bad.code, 1, 'the API body rules apply: a bad email is refused')
  const made = await cli(['setup', '--email', 'owner@cli.test', '--name', 'Owner'], { ...env, HEARTH_SETUP_PASSWORD: 'owner password 1' })
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, /owner created: owner@cli\.test \([0-9a-f-]{36}\)/)
  const again = await cli(['setup', '--email', 'other@cli.test', '--password', 'owner password 2'], env)
  t.equal(again.code, 1, 'a second setup fails')
  t.match(again.stderr, /already complete/)

  const list = await cli(['users', 'list'], env)
  t.match(list.stdout, /^[0-9a-f-]{36}\towner@cli\.test\towner\tfree\tactive\n$/)
  const json = JSON.parse((await cli(['users', 'list', '--json'], env)).stdout)
  t.equal(json[0].email, 'owner@cli.test')

  t.equal((await cli(['users', 'set-tier', 'owner@cli.test', 'pro'], env)).code, 0)
  t.match((await cli(['users', 'list'], env)).stdout, /\towner\tpro\t/)
  t.equal((await cli(['users', 'set-tier', 'owner@cli.test', 'default'], env)).code, 0)
  t.match((await cli(['users', 'list'], env)).stdout, /\towner\tfree\t/)
  const demote = await cli(['users', 'set-role', 'owner@cli.test', 'user'], env)
  t.equal(demote.code, 1, 'the last owner cannot be demoted')
  t.equal((await cli(['users', 'set-role', 'owner@cli.test', 'wizard'], env)).code, 2, 'an unknown role is a usage error')
  t.equal((await cli(['users', 'set-role', 'nobody@cli.test', 'admin'], env)).code, 1, 'an unknown user fails')

  const created = await cli(['keys', 'create', '--scope', 'sync', '--label', 'phone', '--json'], env)
  t.equal(created.code, 0, created.stderr)
  const key = JSON.parse(created.stdout)
  t.match(key, { scope: 'sync', label: 'phone', key: /^clk_[0-9a-f]{32}$/ })
  t.equal((await cli(['keys', 'create', '--scope', 'root'], env)).code, 2, 'an unknown scope is a usage error')
  t.match((await cli(['keys', 'list'], env)).stdout, new RegExp(`^${key.id}\\t${key.key.slice(0, 12)}\\tsync\\t`))
  t.equal((await cli(['keys', 'revoke', key.id], env)).code, 0)
  t.equal((await cli(['keys', 'list'], env)).stdout, '', 'a revoked key is no longer listed')
  t.equal((await cli(['keys', 'revoke', key.id], env)).code, 1, 'revoking twice fails')

  const urls = {
    HEARTH_MAILER_URL: 'https://mailer:hunter2@mail.test/send',
    HEARTH_OFFSITE_REPOSITORY: 'rest:https://hearth:s3cretpw@backup.example:8000/repo',
  }
  const text = await cli(['config'], { ...env, ...urls })
  t.match(text.stdout, /HEARTH_OFFSITE_REPOSITORY +rest:https:\/\/hearth:\*\*\*@backup\.example:8000\/repo /)
  t.notOk(text.stdout.includes('s3cretpw') || text.stdout.includes('hunter2'), 'no password inside a URL is printed')
  const config = JSON.parse((await cli(['config', '--json'], { ...env, ...urls })).stdout) as Array<{
    name: string
    value: string
    source: string
  }>
  const byName = new Map(config.map((s) => [s.name, s]))
  const secrets = readFileSync(join(env.HEARTH_DATA_DIR as string, 'hearth.env'), 'utf8')
  const systemToken = /HEARTH_SYSTEM_TOKEN=(\S+)/.exec(secrets)?.[1] as string
  t.match(byName.get('HEARTH_SYSTEM_TOKEN'), { source: 'hearth.env', value: /^\*+ \(\d+ characters\)$/ })
  t.notOk(JSON.stringify(config).includes(systemToken), 'no secret is printed')
  t.match(byName.get('HEARTH_MAILER_URL'), { source: 'environment', value: 'https://***@mail.test/send' })
  t.match(byName.get('HEARTH_OFFSITE_REPOSITORY'), { value: 'rest:https://hearth:***@backup.example:8000/repo' })
  t.match(byName.get('HEARTH_PORT'), { source: 'default', value: '7200' })
  t.match(byName.get('HEARTH_DATA_DIR'), { source: 'environment' })
  t.match(byName.get('HEARTH_BACKUP_CRON'), { source: 'default', owner: 'backups' }, "plugins' settings are listed with their plugin")

  t.equal((await cli(['migrate'], env)).code, 0)
  const mcp = await cli(['mcp'], { ...env, HEARTH_API_KEY: '' })
  t.equal(mcp.code, 2, 'hearth mcp without a key is a usage error')
  t.match(mcp.stderr, /set HEARTH_API_KEY/)
})

t.test('with the daemon running: the CLI goes through its API and restore is refused', async (t) => {
  const dataDir = join(tempDir(t), 'data')
  const env = quietEnv(dataDir)
  t.equal((await cli(['setup', '--email', 'owner@live.test', '--password', 'owner password 1'], env)).code, 0)
  const daemon = await startDaemon(t, dataDir)

  // A second user, through the API, so the CLI must name a user (X-Svc-User-Id) for admin routes.
  const login = await call(daemon.base, 'POST', '/auth/login', undefined, { email: 'owner@live.test', password: 'owner password 1' })
  const token = (login.json.data as { accessToken: string }).accessToken
  const invite = await call(daemon.base, 'POST', '/admin/invitations', token, { email: 'member@live.test', role: 'user' })
  await call(daemon.base, 'POST', '/auth/register', undefined, {
    token: (invite.json.data as { token: string }).token,
    password: 'member password 1',
  })

  const list = await cli(['users', 'list'], env)
  t.equal(list.code, 0, list.stderr)
  t.match(list.stdout, /owner@live\.test\towner[\s\S]*member@live\.test\tuser/)
  t.equal((await cli(['users', 'set-tier', 'member@live.test', 'pro'], env)).code, 0)
  const users = await call(daemon.base, 'GET', '/admin/users', token)
  t.equal(
    (users.json.data as Array<{ email: string; tier: string }>).find((u) => u.email === 'member@live.test')?.tier,
    'pro',
    'the daemon sees the change at once',
  )

  const created = JSON.parse((await cli(['keys', 'create', '--user', 'member@live.test', '--label', 'agent', '--json'], env)).stdout)
  t.equal((await call(daemon.base, 'GET', '/notes', created.key)).status, 200, 'the new key works against the running daemon')
  t.equal((await cli(['keys', 'revoke', created.id], env)).code, 0)
  // Revoked through the API, the daemon evicts its key cache: refused immediately (a write beside it would be honoured for 30 s).
  t.equal((await call(daemon.base, 'GET', '/notes', created.key)).status, 401, 'the revoked key is refused at once')

  const restore = await cli(['restore', join(dataDir, 'hearth.db')], env)
  t.equal(restore.code, 3, 'restore refuses while the daemon runs')
  t.match(restore.stderr, /daemon is running/)
  const doctor = JSON.parse((await cli(['doctor', '--json'], env)).stdout) as Array<{ check: string; message: string }>
  t.match(doctor.find((f) => f.check === 'daemon')?.message, new RegExp(`running \\(pid ${daemon.pid}`))

  await daemon.stop()
  t.notOk(existsSync(join(dataDir, 'hearth.pid')), 'the daemon removes its lock when it stops')
  t.match((await cli(['users', 'list'], env)).stdout, /member@live\.test\tuser\tpro/, 'stopped: read from the database')
})
