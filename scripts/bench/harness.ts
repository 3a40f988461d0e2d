import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'

export const ROOT = new URL('../../../', import.meta.url).pathname

export const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

/** CPU milliseconds (user + system, all threads) a process has used: /proc/<pid>/stat, clock ticks of 10 ms. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) * 10
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0

/**
 * A load run with the server's CPU per request answered (user + system, /proc): steadier than req/s on a
 * shared machine, and free of the kernel's cost of waking the load generator (which grows as a server slows).
 */
export async function withCpu<T extends { rps: number }>(
  pid: number,
  seconds: number,
  run: () => Promise<T>,
): Promise<T & { cpuUs: number }> {
  const before = cpuMs(pid)
  const result = await run()
  return { ...result, cpuUs: ((cpuMs(pid) - before) * 1000) / Math.max(1, result.rps * seconds) }
}

export interface Daemon {
  url: string
  pid: number
  dataDir: string
  /** Milliseconds from spawn to the first 200 of /api/v1/health. */
  startupMs: number
  /** CPU milliseconds (user + system) the process had used by then (/proc, clock ticks of 10 ms). */
  startupCpuMs: number
  stop(): Promise<void>
}

/** package.json's scripts.start, `[NAME=value ...] node <file>`: the bench starts what users start, with its environment. */
const START = /^((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)node\s+(\S+)$/.exec(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.trim(),
)
if (!START) throw new Error('package.json scripts.start is not `[NAME=value ...] node <file>`')
/** The file `npm start` runs. */
export const DAEMON_ENTRY = join(ROOT, START[2] as string)
/** The variables `npm start` sets before node (MALLOC_TRIM_THRESHOLD_: glibc reads it when the process starts). */
export const START_ENV: Record<string, string> = Object.fromEntries(
  (START[1] as string)
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
)

/** Starts the daemon as `npm start` would, as its own process (node directly, so its PID is the server's). */
export async function startDaemon(env: Record<string, string> = {}, nodeArgs: string[] = [], entry = DAEMON_ENTRY): Promise<Daemon> {
  const port = await freePort()
  const dataDir = env.HEARTH_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'hearth-bench-'))
  const started = performance.now()
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, entry], {
    env: {
      ...process.env,
      ...START_ENV,
      HEARTH_DATA_DIR: dataDir,
      HEARTH_PORT: String(port),
      HEARTH_HOST: '127.0.0.1',
      HEARTH_DNS_PORT: '0',
      HEARTH_LOG_LEVEL: 'warn',
      HEARTH_RATE_LIMIT: '100000000',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const url = `http://127.0.0.1:${port}`
  for (let healthy = false; !healthy;) {
    try {
      healthy = (await fetch(`${url}/api/v1/health`)).ok
    } catch {}
    if (child.exitCode !== null) throw new Error('daemon exited during start')
    // A kept folder from an older version is upgraded before the daemon listens: rebuilding the full-text
    // indexes of a million notes takes about two minutes.
    if (performance.now() - started > 300_000) {
      child.kill('SIGKILL')
      throw new Error('daemon not healthy 300 s after its start')
    }
    if (!healthy) await new Promise((r) => setTimeout(r, 5))
  }
  const startupMs = performance.now() - started
  // CPU the process used to get there (user + system, all threads): steadier than wall time on a busy machine.
  const startupCpuMs = cpuMs(child.pid as number)
  return {
    url,
    pid: child.pid as number,
    dataDir,
    startupMs,
    startupCpuMs,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** Starts any script as a server process that prints its port on stdout. */
export async function startScript(script: string, args: string[] = []): Promise<{ url: string; pid: number; stop(): void }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise<number>((resolve) => child.stdout?.once('data', (d) => resolve(Number(String(d).trim()))))
  return { url: `http://127.0.0.1:${port}`, pid: child.pid as number, stop: () => child.kill('SIGTERM') }
}

/** The informative baseline of idle memory: bare Fastify reading the JSON from SQLite (bare-sqlite-server.ts). */
export async function startBareSqlite(json: string): Promise<{ url: string; pid: number; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bare-sqlite-'))
  const server = await startScript(join(ROOT, 'dist/scripts/bench/bare-sqlite-server.js'), [join(dir, 'bare.db'), json])
  return {
    ...server,
    stop: () => {
      server.stop()
      setTimeout(() => rmSync(dir, { recursive: true, force: true }), 500).unref()
    },
  }
}

export interface Load {
  rps: number
  p99: number
  errors: number
}

/** The same load for every target: 20 connections, 10 pipelined... no: one request in flight per connection. */
export async function load(
  url: string,
  opts: { headers?: Record<string, string>; seconds?: number; method?: 'GET' | 'POST'; body?: string } = {},
): Promise<Load> {
  const result = await autocannon({
    url,
    connections: 20,
    duration: opts.seconds ?? 5,
    headers: opts.headers,
    method: opts.method ?? 'GET',
    body: opts.body,
  })
  return { rps: Math.round(result.requests.average), p99: result.latency.p99, errors: result.errors + result.non2xx }
}

/**
 * A process's resident memory in MB (/proc/<pid>/status): `rss` all of it, `private` its anonymous pages
 * (RssAnon: heap, stacks, malloc; what the process alone holds), beside file-backed pages such as node's
 * own code, which every node process maps and which the kernel may share or drop.
 */
export function memoryMb(pid: number): { rss: number; private: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const mb = (name: string) => Math.round((Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024) * 10) / 10
  return { rss: mb('VmRSS'), private: mb('RssAnon') }
}

export function rssMb(pid: number): Promise<number> {
  return import('node:fs').then(({ readFileSync }) => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0)
    return Math.round((kb / 1024) * 10) / 10
  })
}

export async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`)
  return ((await res.json()) as { data: T }).data
}

/** Creates the owner and an API key of the given scope on a running daemon. */
export async function ownerWithKey(
  url: string,
  scope: 'agent' | 'system' = 'agent',
): Promise<{ token: string; key: string; userId: string }> {
  const credentials = JSON.stringify({ email: 'bench@example.test', password: 'bench password' })
  const post = (path: string) =>
    fetch(`${url}/api/v1/auth/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: credentials })
  // A data folder kept from an earlier run (HEARTH_BENCH_DATA_DIR) has its owner already: sign in.
  const setup = await post('setup')
  const session = await json<{ accessToken: string; user: { id: string } }>(setup.status === 409 ? await post('login') : setup)
  const created = await json<{ key: string }>(
    await fetch(`${url}/api/v1/admin/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${session.accessToken}` },
      body: JSON.stringify({ scope }),
    }),
  )
  return { token: session.accessToken, key: created.key, userId: session.user.id }
}

/** Runs `fn` `runs` times in-process; returns the nearest-rank quantile (0..1) of its times, in ms, rounded to 0.01. */
export function timeRuns(fn: () => unknown, runs: number): (q: number) => number {
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    fn()
    samples.push(performance.now() - started)
  }
  samples.sort((a, b) => a - b)
  return (q) => Math.round((samples[Math.min(runs - 1, Math.max(0, Math.ceil(q * runs) - 1))] as number) * 100) / 100
}
