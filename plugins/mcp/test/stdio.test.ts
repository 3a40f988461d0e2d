import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import t from 'tap'
import WebSocket from 'ws'
import { rmSync } from 'node:fs'
import { ownerWithKey, ROOT, startDaemon } from '../../../scripts/bench/harness.js'
import type { TestContext } from '../../../test/helper.js'
import { call } from './mcp-client.js'

const HEARTH = join(ROOT, 'dist/scripts/hearth.js')

/** The compiled daemon in its own process on a free port (never the machine's Caddy), stopped by PID in teardown. */
async function daemon(t: TestContext) {
  const started = await startDaemon({ HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1', HEARTH_PLUGINS_DIR: '' })
  t.teardown(async () => {
    await started.stop()
    rmSync(started.dataDir, { recursive: true, force: true })
  })
  return started
}

/** `hearth mcp` as the child process an MCP client launches, against a daemon in its own process. */
async function stdioClient(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'hearth-stdio-test', version: '1.0.0' })
  const transport = new StdioClientTransport({ command: process.execPath, args: [HEARTH, 'mcp'], env, stderr: 'pipe' })
  await client.connect(transport)
  return client
}

t.test('hearth mcp bridges stdio to the daemon: tools listed and called, effects seen over REST and the WebSocket', async (t) => {
  const { url } = await daemon(t)
  const { token, key } = await ownerWithKey(url)
  const events: Array<{ type: string; id: string }> = []
  const ws = new WebSocket(`${url.replace('http', 'ws')}/api/v1/ws`, { headers: { authorization: `Bearer ${token}` } })
  ws.on('message', (m) => events.push(JSON.parse(String(m))))
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  t.teardown(() => ws.terminate())

  const client = await stdioClient({ HEARTH_API_KEY: key, HEARTH_URL: url })
  t.teardown(() => client.close())
  t.equal(client.getServerVersion()?.name, 'hearth', 'initialize answered by the daemon')
  const { tools } = await client.listTools()
  t.equal(tools.length, 31)

  const created = await call(client, 'create_note', { content: 'Plant the tulip bulbs', tags: ['garden'] })
  const id = created.structuredContent?.id as string
  t.equal(created.structuredContent?.title, 'Plant the tulip bulbs')
  const rest = await fetch(`${url}/api/v1/notes/${id}`, { headers: { authorization: `Bearer ${token}` } })
  t.equal(((await rest.json()) as { data: { tags: string[] } }).data.tags[0], 'garden', 'stored, read back over REST')
  for (let i = 0; i < 300 && !events.some((e) => e.type === 'note.created'); i++) await new Promise((r) => setTimeout(r, 10))
  t.ok(
    events.some((e) => e.type === 'note.created' && e.id === id),
    'note.created on the WebSocket',
  )

  t.equal((await call(client, 'search', { query: 'tulip' })).structuredContent?.notes.total, 1)
  t.equal((await call(client, 'calendar')).structuredContent?.total, 0, 'an empty week')
  const failed = await call(client, 'get_event', { id })
  t.same([failed.isError, failed.structuredContent?.error.code], [true, 'NOT_FOUND'])
})

t.test('hearth mcp: a bad key fails the requests with the HTTP error; no key or no daemon says so on stderr', async (t) => {
  const { url } = await daemon(t)
  await t.rejects(stdioClient({ HEARTH_API_KEY: 'clk_bad', HEARTH_URL: url }), /HTTP 401 UNAUTHORIZED/, 'bad key: 401 as a JSON-RPC error')
  await t.rejects(stdioClient({ HEARTH_API_KEY: 'clk_any', HEARTH_URL: 'http://127.0.0.1:1' }), /not reachable/, 'no daemon')

  const child = spawn(process.execPath, [HEARTH, 'mcp'], { env: { PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  let stdout = ''
  child.stderr.on('data', (d) => (stderr += d))
  child.stdout.on('data', (d) => (stdout += d))
  child.stdin.end()
  const code = await new Promise((resolve) => child.once('exit', resolve))
  t.equal(code, 2)
  t.match(stderr, /HEARTH_API_KEY/)
  t.equal(stdout, '', 'stdout carries MCP messages only')
})
