import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestContext } from '../../../test/helper.js'

/**
 * A real Hearth daemon (node dist/core/main.js) on a free port with a temporary data folder,
 * an owner and a dav key: what the real-client suites (vdirsyncer, python3-caldav, litmus) talk to.
 */
export interface Daemon {
  /** The daemon's process id (its memory is read from /proc). */
  pid: number
  base: string
  port: number
  dir: string
  email: string
  key: string
  token: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back and asserts its shape itself
  json(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
}

const MAIN = fileURLToPath(new URL('../../../core/main.js', import.meta.url))

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })
}

/** Whether a command exists: a suite without its tool says so and skips. */
export function hasTool(cmd: string, args: string[] = ['--version']): boolean {
  const r = spawnSync(cmd, args, { stdio: 'ignore' })
  return !r.error
}

/** Debian's Python, where python3-caldav, -icalendar and -vobject import (the `python3` on PATH may be another). */
export const PYTHON = '/usr/bin/python3'

/** false when Debian's python3-<module> imports, else the reason a suite using it skips. */
export function noPythonModule(module: string): false | string {
  const ok = hasTool(PYTHON, ['-c', `import ${module}`]) && spawnSync(PYTHON, ['-c', `import ${module}`]).status === 0
  return ok ? false : `python3-${module} is not installed (apt install python3-${module}; .ci/run installs it)`
}

/** Another member of the daemon's household (invited and registered), with a dav key of their own. */
export async function householdMember(d: Daemon, name: string): Promise<{ userId: string; email: string; key: string }> {
  const email = `${name.toLowerCase()}@example.test`
  const invite = await d.json('POST', '/api/v1/admin/invitations', { email, role: 'user' })
  const res = await fetch(`${d.base}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: invite.body.data.token, password: 'another good password', name }),
  })
  const userId = ((await res.json()) as { data: { user: { id: string } } }).data.user.id
  const key = (await d.json('POST', '/api/v1/admin/api-keys', { scope: 'dav', label: `${name}'s phone`, user_id: userId })).body.data
    .key as string
  return { userId, email, key }
}

export async function startDaemon(t: TestContext, env: Record<string, string> = {}): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-dav-'))
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HEARTH_DATA_DIR: join(dir, 'data'),
      HEARTH_PORT: String(port),
      HEARTH_HOST: '127.0.0.1',
      HEARTH_DNS_PORT: '0',
      HEARTH_LOG_LEVEL: 'warn',
      HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1',
      HEARTH_PLUGINS_DIR: '',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      process.kill(child.pid, 'SIGTERM')
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))])
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL')
    }
    rmSync(dir, { recursive: true, force: true })
  })
  const base = `http://127.0.0.1:${port}`
  // Two minutes: a start takes a second or two, but far longer on a machine whose cores are all taken.
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).status < 500) break
    } catch {
      // not listening yet
    }
    if (i > 1200 || child.exitCode !== null) throw new Error('the daemon did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const call = async (method: string, path: string, body?: unknown, token?: string) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null }
  }
  const email = 'owner@example.test'
  const setup = await call('POST', '/api/v1/auth/setup', { email, password: 'correct horse battery', name: 'Owner' })
  const token = setup.body.data.accessToken as string
  const key = (await call('POST', '/api/v1/admin/api-keys', { scope: 'dav', label: 'dav clients' }, token)).body.data.key as string
  return { pid: child.pid as number, base, port, dir, email, key, token, json: (method, path, body) => call(method, path, body, token) }
}
