import { type ChildProcess, spawn } from 'node:child_process'
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from '../../../test/helper.js'

/** The uid and gid of a system user, or null when it does not exist. */
export function systemUser(name: string): { uid: number; gid: number } | null {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`))
  if (!line) return null
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** Runs `cmd args` as that user (setpriv execs, so the child's PID is the command's own). */
export const asUser = (user: string, cmd: string, args: string[]): [string, string[]] => [
  'setpriv',
  ['--reuid', user, '--regid', user, '--init-groups', cmd, ...args],
]

export interface CaddyProcess {
  start(): Promise<void>
  stop(): Promise<void>
  /** Caddy's own home (HOME, XDG_DATA_HOME, XDG_CONFIG_HOME below it), owned by Caddy's user. */
  home: string
  /** Whether it runs as user `caddy` (false only where the tests do not run as root). */
  asCaddy: boolean
}

/**
 * Debian's caddy run the way caddy.service runs it: as user `caddy`, from a Caddyfile that sets only
 * the admin endpoint (what a restart brings back: no route of Hearth's), with its own home that
 * Hearth never reads. Hearth's data folder (0700, another user's) is out of Caddy's reach, so any
 * path of Hearth's in the pushed config fails as it does on an appliance.
 */
export async function runCaddy(t: TestContext & { comment(message: string): void }, adminPort: number): Promise<CaddyProcess> {
  const caddy = process.getuid?.() === 0 ? systemUser('caddy') : null
  if (!caddy) t.comment('not root or no user caddy (apt-get install caddy): Caddy runs as this test’s user')
  const home = mkdtempSync(join(tmpdir(), 'hearth-caddy-home-'))
  const caddyfile = join(home, 'Caddyfile')
  writeFileSync(caddyfile, `{\n\tadmin 127.0.0.1:${adminPort}\n}\n`, { mode: 0o644 })
  if (caddy) chownSync(home, caddy.uid, caddy.gid)
  let child: ChildProcess | null = null
  const start = async () => {
    const [cmd, args] = caddy ? asUser('caddy', 'caddy', ['run', '--config', caddyfile]) : ['caddy', ['run', '--config', caddyfile]]
    child = spawn(cmd, args, {
      env: { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_CONFIG_HOME: join(home, 'config') },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    // HEARTH_TLS_DEBUG=1 shows Caddy's log when a test needs explaining.
    child.stderr?.on('data', (c: Buffer) => process.env.HEARTH_TLS_DEBUG && process.stderr.write(c))
    // Up to 20 s: a loaded CI machine starts Caddy in seconds, not the usual 100-300 ms.
    for (const end = Date.now() + 20_000; Date.now() < end;) {
      if ((await viaCaddy(adminPort, `127.0.0.1:${adminPort}`, '/config/').catch(() => null))?.status === 200) return
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error('caddy did not start (is Debian’s caddy installed?)')
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      const running = child
      if (!running || running.exitCode !== null || running.signalCode !== null) return resolve()
      running.once('exit', () => resolve())
      running.kill('SIGKILL')
    })
  t.teardown(async () => {
    await stop()
    rmSync(home, { recursive: true, force: true })
  })
  await start()
  return { start, stop, home, asCaddy: caddy !== null }
}

/** One HTTP GET to 127.0.0.1:port with the given Host header (Caddy routes by it). */
export function viaCaddy(port: number, host: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, timeout: 3000, agent: false }, (res) => {
      let body = ''
      res.on('data', (c) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.end()
  })
}
