import { join } from 'node:path'
import t from 'tap'
import { cli, quietEnv, tempDir } from '../../../test/cli-process.js'
import { hasTool } from '../../dav/test/daemon.js'
import { offsiteCycle } from './cycle.js'

const skip = hasTool('restic', ['version']) ? false : 'restic is not installed (apt install restic; .ci/run installs it)'

t.test('the off-site cycle against a repository in a local folder', { skip }, async (t) => {
  const folder = join(tempDir(t, 'hearth-restic-'), 'repo')
  await offsiteCycle(t, { repository: folder, folder })
})

t.test('a repository this password does not open is refused, not overwritten; a wrong password is a clear error', { skip }, async (t) => {
  const root = tempDir(t, 'hearth-restic-')
  const repository = join(root, 'repo')
  const theirs = { ...quietEnv(join(root, 'theirs')), HEARTH_OFFSITE_REPOSITORY: repository, HEARTH_OFFSITE_PASSWORD: 'their password 1' }
  t.equal((await cli(['setup', '--email', 'a@offsite.test', '--password', 'owner password 1'], theirs)).code, 0)
  t.equal((await cli(['offsite', 'run'], theirs)).code, 0)
  const mine = { ...quietEnv(join(root, 'mine')), HEARTH_OFFSITE_REPOSITORY: repository }
  t.equal((await cli(['setup', '--email', 'b@offsite.test', '--password', 'owner password 1'], mine)).code, 0)
  const run = await cli(['offsite', 'run'], mine)
  t.equal(run.code, 1)
  t.match(run.stderr, /this password does not open it.*left untouched/)
  const wrong = await cli(['offsite', 'snapshots'], { ...theirs, HEARTH_OFFSITE_PASSWORD: 'not the password' })
  t.equal(wrong.code, 1)
  t.match(wrong.stderr, /wrong password/)
  t.notOk(wrong.stderr.includes('not the password'), 'the password given is not echoed')
  const still = await cli(['offsite', 'snapshots'], theirs)
  t.equal(still.stdout.trim().split('\n').length, 1, 'their snapshot is still there')
})
