import { join } from 'node:path'
import t from 'tap'
import { hasTool } from '../../dav/test/daemon.js'
import { offsiteCycle } from './cycle.js'
import { haveSshd, startSshd } from './sshd.js'

const skip = !hasTool('restic', ['version'])
  ? 'restic is not installed (apt install restic; .ci/run installs it)'
  : !haveSshd()
    ? 'the OpenSSH server is not installed (apt install openssh-server; .ci/run installs it)'
    : !hasTool('ssh', ['-V'])
      ? 'the OpenSSH client is not installed (apt install openssh-client)'
      : false

t.test('the off-site cycle over SFTP to an OpenSSH server on loopback', { skip }, async (t) => {
  const sshd = await startSshd(t)
  const folder = join(sshd.home, 'repo')
  await offsiteCycle(t, {
    repository: `sftp://${sshd.user}@127.0.0.1:${sshd.port}/${folder}`,
    folder,
    authorize: (key) => sshd.authorize(key),
  })
})
