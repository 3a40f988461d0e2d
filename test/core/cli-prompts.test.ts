import { join } from 'node:path'
import t from 'tap'
import { cli, converse, quietEnv, tempDir } from '../cli-process.js'

t.test('hearth setup asks on a terminal, and does not echo the password', async (t) => {
  const env = quietEnv(join(tempDir(t), 'data'))
  const secret = 'typed on the terminal 1'
  const r = await converse(['setup'], env, [
    [/Owner email: /, 'owner@tty.test'],
    [/Password: /, secret],
    [/Password again: /, secret],
    [/Name \(optional\): /, 'Terminal Owner'],
  ])
  t.equal(r.code, 0, r.screen)
  t.match(r.screen, /owner created: owner@tty\.test/)
  t.notOk(r.screen.includes(secret), 'the password never shows')
  const list = JSON.parse((await cli(['users', 'list', '--json'], env)).stdout)
  t.match(list, [{ email: 'owner@tty.test', name: 'Terminal Owner', role: 'owner' }])
  const login = await cli(['users', 'reset-token', 'owner@tty.test'], env)
  t.equal(login.code, 0, 'the owner exists in the database')
})

t.test('hearth setup on a terminal: two different passwords fail', async (t) => {
  const env = quietEnv(join(tempDir(t), 'data'))
  const r = await converse(['setup', '--email', 'owner@tty.test'], env, [
    [/Password: /, 'first password 1'],
    [/Password again: /, 'second password 2'],
  ])
  t.equal(r.code, 1)
  t.match(r.screen, /the passwords differ/)
})
