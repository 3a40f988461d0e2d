import { join } from 'node:path'
import t from 'tap'
import { cli, quietEnv, startDaemon, tempDir } from '../cli-process.js'

/** `hearth keys create --scope dav`, as an admin setting up a phone does, through real CLI processes. */
const OWNER = ['setup', '--email', 'owner@admin.test', '--password', 'owner password 1']
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
