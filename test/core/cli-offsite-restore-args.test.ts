import { join } from 'node:path'
import t from 'tap'
import { cli, quietEnv, tempDir } from '../cli-process.js'

t.test('hearth offsite restore takes only a snapshot id or latest, never an option for the engine', async (t) => {
  const root = tempDir(t)
  const env = {
    ...quietEnv(join(root, 'data')),
    HEARTH_OFFSITE_REPOSITORY: join(root, 'repo'),
    HEARTH_OFFSITE_PASSWORD: 'a long enough password',
  }
  for (const bad of ['--no-verify', '-r=/elsewhere', 'abc', '1234567', 'latest:/etc', 'ABCDEF12']) {
    const res = await cli(['offsite', 'restore', '--', bad], env)
    t.equal(res.code, 2, `${bad}: a usage error (${res.stderr.trim()})`)
    t.match(res.stderr, /is not a snapshot id/)
  }
})
