import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from '../../../test/helper.js'

export const ROOT = new URL('../../../../', import.meta.url).pathname

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })

/** The compiled daemon as its own process on a free port (node directly: its PID is the server's), killed in teardown. */
export async function startDaemon(t: TestContext, env: Record<string, string> = {}): Promise<{ url: string; pid: number }> {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-mcp-'))
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'dist/core/main.js')], {
    env: {
      ...process.env,
      HEARTH_DATA_DIR: dataDir,
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
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      process.kill(child.pid as number, 'SIGTERM')
      await exited
    }
    rmSync(dataDir, { recursive: true, force: true })
  })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/api/v1/health`)).ok) break
    } catch {}
    if (child.exitCode !== null || i > 3000) throw new Error('the daemon did not start')
    await new Promise((r) => setTimeout(r, 10))
  }
  return { url, pid: child.pid as number }
}

/** Creates the owner and an API key over HTTP. */
export async function ownerAndKey(url: string, scope = 'agent'): Promise<{ token: string; key: string }> {
  const post = async (path: string, body: unknown, token?: string) => {
    const res = await fetch(`${url}/api/v1${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    })
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
    return ((await res.json()) as { data: Record<string, string> }).data
  }
  const session = await post('/auth/setup', { email: 'agent-owner@example.test', password: 'a good long password' })
  const token = session.accessToken as string
  return { token, key: (await post('/admin/api-keys', { scope, label: 'test agent' }, token)).key as string }
}
