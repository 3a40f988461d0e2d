import t from 'tap'
import { maskUrlCredentials, withoutSecrets } from '../../lib/url-credentials.js'

t.test('a password in a URL is masked, the user stays', async (t) => {
  t.equal(maskUrlCredentials('rest:https://alice:s3cr3t@backup.example:8000/repo'), 'rest:https://alice:***@backup.example:8000/repo')
  t.equal(maskUrlCredentials('sftp:bob@host:/srv/restic'), 'sftp:bob@host:/srv/restic', 'no password, nothing to hide')
  t.equal(maskUrlCredentials('/srv/restic'), '/srv/restic')
  t.equal(
    maskUrlCredentials('Fatal: unable to open rest:http://u:p%40ss@h/ and s3:https://k:v@s3.example/b'),
    'Fatal: unable to open rest:http://u:***@h/ and s3:https://k:***@s3.example/b',
  )
})

t.test('a secret quoted in a message is removed', async (t) => {
  t.equal(withoutSecrets('wrong password "hunter22" given', ['hunter22']), 'wrong password "***" given')
  t.equal(withoutSecrets('nothing here', ['']), 'nothing here', 'an empty secret removes nothing')
})

t.test('a long text without a match ends in one pass', async (t) => {
  const text = `https://${'a'.repeat(200_000)}:`
  t.equal(maskUrlCredentials(text), text)
})
