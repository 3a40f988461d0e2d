import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from './helper.js'

/** The built CLI and daemon entries (dist/). */
export const CLI = new URL('../scripts/hearth.js', import.meta.url).pathname
export const DAEMON = new URL('../core/main.js', import.meta.url).pathname

export interface CliResult {
  code: number
  stdout: string
  stderr: string
}

/** Settings every spawned process gets: no DNS server, never the machine's Caddy, quiet logs. */
export const quietEnv = (dataDir: string): Record<string, string> => ({
  HEARTH_DATA_DIR: dataDir,
  HEARTH_DNS_PORT: '0',
  HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1',
  HEARTH_LOG_LEVEL: 'warn',
  HEARTH_PLUGINS_DIR: '',
  HEARTH_HOST: '127.0.0.1',
})

/** Runs `hearth ARGS` as a real process; never throws on a non-zero exit. */
export function cli(args: string[], env: Record<string, string>, opts: { input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    )
    if (opts.input !== undefined) child.stdin?.end(opts.input)
  })
}

export function tempDir(t: TestContext, prefix = 'hearth-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

export interface Daemon {
  pid: number
  base: string
  /** SIGTERM, then waits for the exit (the daemon checkpoints and removes its lock). */
  stop(): Promise<void>
  child: ChildProcess
}

/**
 * Spawns the daemon (node dist/core/main.js) on `dataDir` and waits for its lock file; killed by PID in
 * teardown. `as` runs it as another user (the test must be root; `dataDir` must be that user's).
 */
export async function startDaemon(
  t: TestContext,
  dataDir: string,
  env: Record<string, string> = {},
  as: { uid: number; gid: number } | null = null,
  /** Everything the daemon writes (its log lines), for tests that read them. */
  onOutput?: (text: string) => void,
): Promise<Daemon> {
  const child = spawn(process.execPath, [DAEMON], {
    env: { ...process.env, ...quietEnv(dataDir), HEARTH_PORT: '0', ...env },
    stdio: ['ignore', onOutput ? 'pipe' : 'ignore', 'pipe'],
    ...(as ? { uid: as.uid, gid: as.gid } : {}),
  })
  let stderr = ''
  child.stderr?.on('data', (c) => (stderr = (stderr + c).slice(-8000)))
  if (onOutput) {
    child.stdout?.on('data', (c: Buffer) => onOutput(c.toString()))
    child.stderr?.on('data', (c: Buffer) => onOutput(c.toString()))
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  t.teardown(stop)
  const lockFile = join(dataDir, 'hearth.pid')
  // Two minutes: a start takes a second or two, but far longer on a CI machine whose cores are all taken.
  for (let i = 0; i < 1200; i++) {
    if (existsSync(lockFile)) {
      const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as { pid: number; port: number }
      if (lock.pid === child.pid) return { pid: lock.pid, base: `http://127.0.0.1:${lock.port}/api/v1`, stop, child }
    }
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 100))
  }
  await stop()
  throw new Error(`the daemon did not start: ${stderr}`)
}

/** One JSON call to a spawned daemon. */
export async function call(
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown,
): Promise<{ status: number; json: { data?: unknown; error?: { code: string } } & Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: res.status, json: (await res.json().catch(() => ({}))) as never }
}

/**
 * Runs the CLI on a pseudo-terminal (script(1)) and answers each question when it appears,
 * as a person would; resolves with everything the terminal showed and the exit code.
 */
export function converse(
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
