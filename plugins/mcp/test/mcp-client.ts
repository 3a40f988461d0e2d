import type { AddressInfo } from 'node:net'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { apiKey, build, owner, type TestApp, type TestContext, type TestUser } from '../../../test/helper.js'

/** The official SDK client over streamable HTTP against a listening test app. */
export async function connectHttp(base: string, token: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'hearth-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/api/v1/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
  })
  await client.connect(transport)
  return client
}

export async function listening(app: TestApp): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

export interface ToolAnswer {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back and asserts its shape itself
  structuredContent?: Record<string, any>
  content: Array<{ type: string; text?: string }>
  isError?: boolean
}

/** Calls a tool and returns what the SDK parsed. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer
}

/** One raw JSON-RPC POST (what the SDK would not send: bad versions, batches, foreign origins). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads whatever JSON came back and asserts its shape itself
export async function post(base: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}/api/v1/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

/** A listening app with its owner and an agent key: what most MCP tests start from. */
export async function agentSetup(
  t: TestContext,
  env: Record<string, string> = {},
): Promise<{ app: TestApp; base: string; o: TestUser; key: string }> {
  const app = await build(t, { env })
  const base = await listening(app)
  const o = await owner(app)
  return { app, base, o, key: await apiKey(app, o.token) }
}
