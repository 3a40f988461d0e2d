import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { cli, quietEnv, tempDir } from '../../../test/cli-process.js'
import { sftpCommand, sftpRepositoryProblem, sftpTarget } from '../restic/sftp.js'

// A user name that restic's splitter cuts at the backslash, leaving `-oProxyCommand=…` as a word of its own for ssh.
const EXPLOIT = 'sftp:bob\\-oProxyCommand=touch${IFS}pwned@example.invalid:/r'

t.test('a repository whose user or host could become an ssh option is refused', async (t) => {
  t.match(sftpRepositoryProblem(EXPLOIT), /user/)
  t.match(sftpRepositoryProblem('sftp:-oProxyCommand=x@host:/r'), /user/)
  t.match(sftpRepositoryProblem('sftp:bob@-oProxyCommand=x:/r'), /host/)
  t.match(sftpRepositoryProblem('sftp:-oProxyCommand=x:/r'), /host/)
  t.match(sftpRepositoryProblem('sftp://bob@-oProxyCommand=x:22//r'), /host/)
  t.match(sftpRepositoryProblem('sftp://b\\ob@host//r'), /user/)
  t.match(sftpRepositoryProblem('sftp:bob@ho st:/r'), /host/)
  t.match(sftpRepositoryProblem('sftp:bob@[::1;x]:/r'), /IPv6/)
  t.match(sftpRepositoryProblem('sftp://bob@host:99999//r'), /port/)
  t.match(sftpRepositoryProblem('sftp:nothing'), /sftp:user@host/)
})

t.test('ordinary SFTP addresses and other repositories pass', async (t) => {
  for (const ok of [
    'sftp:bob@backup.example:/srv/restic',
    'sftp:bob@backup.example:srv/restic',
    'sftp:backup.example:/srv/restic',
    'sftp:bob.smith_2@192.168.1.20:/r',
    'sftp:bob@[::1]:/r',
    'sftp://bob@backup.example:2222//srv/restic',
    'sftp://bob@[fe80::1]:22//r',
    'sftp://backup.example/r',
    '/srv/restic',
    'rest:https://hearth:pw@backup.example:8000/repo',
  ])
    t.equal(sftpRepositoryProblem(ok), null, ok)
})

t.test("the host comes after '--' in the ssh command line", async (t) => {
  const target = sftpTarget('sftp://bob@[::1]:2222//r')
  t.same(target, { user: 'bob', host: '::1', port: 2222 })
  const command = sftpCommand(target as NonNullable<typeof target>, '/k/id', '/k/known_hosts')
  t.match(command, / -p 2222 -l bob -s -- ::1 sftp$/)
})

t.test('the CLI refuses the exploit with a configuration error and runs nothing', async (t) => {
  const dir = tempDir(t)
  const pwned = join(process.cwd(), 'pwned')
  t.teardown(() => rmSync(pwned, { force: true }))
  const env = { ...quietEnv(dir), HEARTH_OFFSITE_REPOSITORY: EXPLOIT, HEARTH_OFFSITE_PASSWORD: 'a-long-enough-password' }
  const res = await cli(['offsite', 'snapshots'], env)
  t.equal(res.code, 78, res.stderr)
  t.match(res.stderr, /HEARTH_OFFSITE_REPOSITORY: the user/)
  t.notOk(existsSync(pwned), 'no command ran')
})
