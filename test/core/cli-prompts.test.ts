import { spawn } from 'node:child_process'
import { join } from 'node:path'
import t from 'tap'
import { CLI, cli, quietEnv, tempDir } from '../cli-process.js'

/**
 * Runs the CLI on a pseudo-terminal (script(1)) and answers each question when it appears,
 * as a person would; resolves with everything the terminal showed and the exit code.
 */
function converse(
  args: string[],
  env: Record<string, string>,
  answers: Array<[RegExp, string]>,
): Promise<{ code: number; screen: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', [process.execPath, CLI, ...args].join(' '), '/dev/null'], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let screen = ''
    let next = 0
    let answeredAt = 0
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no answer expected after: ${JSON.stringify(screen)}`))
    }, 60_000)
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk.toString('utf8')
      const step = answers[next]
      // Answer each question once it shows, after what was answered before.
      if (step && step[0].test(screen.slice(answeredAt))) {
        answeredAt = screen.length
        next++
        child.stdin.write(`${step[1]}\r`)
      }
    })
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? 1, screen })
    })
  })
}

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
