import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { cli, quietEnv, tempDir } from '../cli-process.js'

const COMMANDS: string[][] = [
  [],
  ['setup'],
  ['users'],
  ['users', 'list'],
  ['users', 'create'],
  ['users', 'set-password'],
  ['users', 'reset-token'],
  ['users', 'set-role'],
  ['users', 'set-tier'],
  ['users', 'reset-2fa'],
  ['keys'],
  ['keys', 'create'],
  ['keys', 'list'],
  ['keys', 'revoke'],
  ['app-passwords'],
  ['app-passwords', 'create'],
  ['app-passwords', 'list'],
  ['app-passwords', 'revoke'],
  ['backup'],
  ['backup', 'list'],
  ['restore'],
  ['doctor'],
  ['config'],
  ['migrate'],
  ['mcp'],
]

t.test('--help on every command and subcommand; usage errors exit 2', async (t) => {
  const env = quietEnv(join(tempDir(t), 'data'))
  for (const words of COMMANDS) {
    const r = await cli([...words, '--help'], env)
    t.equal(r.code, 0, `hearth ${words.join(' ')} --help exits 0`)
    t.match(r.stdout, /^usage: hearth/, `hearth ${words.join(' ')} --help prints its usage`)
  }
  const top = await cli(['--help'], env)
  t.match(top.stdout, /exit codes:[\s\S]*2 +usage error[\s\S]*4 +backup refused/, 'the exit codes are documented in --help')

  for (const [args, why] of [
    [['frobnicate'], 'unknown command'],
    [['users', 'frob'], 'unknown subcommand'],
    [['users', 'list', '--nope'], 'unknown option'],
    [['backup'], 'missing FILE'],
    [['users', 'set-role', 'a@b.test'], 'missing ROLE'],
    [[], 'no command'],
  ] as Array<[string[], string]>) {
    const r = await cli(args, env)
    t.equal(r.code, 2, `${why}: exit 2`)
    t.match(r.stderr, /usage/, `${why}: the usage is printed`)
  }
  t.notOk(existsSync(env.HEARTH_DATA_DIR as string), '--help and usage errors create no data folder')
})
