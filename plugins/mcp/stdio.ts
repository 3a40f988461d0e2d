import { createInterface } from 'node:readline'

/**
 * `hearth mcp`: MCP's stdio transport for clients that launch their servers
 * (Claude Desktop, editors), bridged to the daemon's streamable HTTP endpoint.
 * Each line on stdin is one JSON-RPC message, POSTed to /api/v1/mcp with
 * HEARTH_API_KEY; each answer is written to stdout as one line. Nothing else
 * ever goes to stdout (diagnostics go to stderr). The daemon does the work:
 * this process holds no data and opens no database.
 */
export interface StdioOptions {
  /** Environment: HEARTH_API_KEY (required), HEARTH_URL (default http://127.0.0.1:7200), HEARTH_USER_ID (system keys in multi-user mode). */
  env: Record<string, string | undefined>
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
  errors: NodeJS.WritableStream
}

const isRequest = (m: unknown): m is { id: string | number; method: string } =>
  typeof m === 'object' && m !== null && 'method' in m && 'id' in m

/** Runs until stdin ends and every answer is written; resolves to the exit code. */
export async function runMcpStdio({ env, input, output, errors }: StdioOptions): Promise<number> {
  const key = env.HEARTH_API_KEY
  if (!key) {
    errors.write('hearth mcp: set HEARTH_API_KEY to an API key (scope agent), see docs/agents.md\n')
    return 2
  }
  const endpoint = `${(env.HEARTH_URL || 'http://127.0.0.1:7200').replace(/\/+$/, '')}/api/v1/mcp`
  let protocolVersion: string | undefined
  const headers = (): Record<string, string> => ({
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(env.HEARTH_USER_ID ? { 'x-svc-user-id': env.HEARTH_USER_ID } : {}),
    ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}),
  })
  const write = (message: unknown): void => void output.write(`${JSON.stringify(message)}\n`)

  const forward = async (line: string): Promise<void> => {
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      message = undefined
    }
    const id = isRequest(message) ? message.id : null
    try {
      const res = await fetch(endpoint, { method: 'POST', headers: headers(), body: line })
      const text = await res.text()
      if (res.status === 202 || !text) return
      const body = JSON.parse(text) as Record<string, unknown>
      if ('jsonrpc' in body || Array.isArray(body)) {
        // Remember the negotiated version: later requests carry it in MCP-Protocol-Version.
        const negotiated = (body.result as { protocolVersion?: unknown } | undefined)?.protocolVersion
        if (isRequest(message) && message.method === 'initialize' && typeof negotiated === 'string') protocolVersion = negotiated
        return write(body.id === null && id !== null ? { ...body, id } : body)
      }
      // The API's own envelope (401, 403, 429...): the waiting request gets it as a JSON-RPC error.
      const error = (body.error ?? {}) as { code?: string; message?: string }
      errors.write(`hearth mcp: HTTP ${res.status} ${error.code ?? ''} ${error.message ?? ''}\n`)
      if (id !== null)
        write({
          jsonrpc: '2.0',
          id,
          error: { code: -32000, message: `HTTP ${res.status} ${error.code}: ${error.message}`, data: body.error },
        })
    } catch (err) {
      errors.write(`hearth mcp: ${endpoint}: ${(err as Error).message}\n`)
      if (id !== null) write({ jsonrpc: '2.0', id, error: { code: -32000, message: `Hearth is not reachable at ${endpoint}` } })
    }
  }

  const pending = new Set<Promise<void>>()
  // An initialize must be answered before what follows it uses the negotiated version.
  let initializing: Promise<void> = Promise.resolve()
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue
    await initializing
    const job = forward(line)
    if (/"method"\s*:\s*"initialize"/.test(line)) initializing = job
    pending.add(job)
    void job.finally(() => pending.delete(job))
  }
  await Promise.all(pending)
  return 0
}
