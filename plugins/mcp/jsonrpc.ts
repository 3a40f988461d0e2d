/**
 * MCP over JSON-RPC 2.0, the part a tools-only, stateless server speaks:
 * initialize (version negotiation), ping, tools/list, tools/call; notifications
 * and client responses are accepted and need no answer. Transport-neutral:
 * the HTTP route (index.ts) hands each message here.
 */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const
export const LATEST = PROTOCOL_VERSIONS[0]
/** The streamable HTTP transport's rule when a request carries no MCP-Protocol-Version header. */
export const ASSUMED_WITHOUT_HEADER = '2025-03-26'

export const PARSE_ERROR = -32700
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602

export type Id = string | number
export interface JsonRpcError {
  jsonrpc: '2.0'
  id: Id | null
  error: { code: number; message: string; data?: unknown }
}
export type JsonRpcResponse = { jsonrpc: '2.0'; id: Id; result: Record<string, unknown> } | JsonRpcError

export const rpcError = (id: Id | null, code: number, message: string): JsonRpcError => ({
  jsonrpc: '2.0',
  id,
  error: { code, message },
})

export interface Handlers {
  serverInfo: { name: string; title: string; version: string }
  instructions: string
  listTools(): unknown[]
  /** Runs a known tool; null when no tool has that name. */
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown> | null>
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
/** An id is echoed in the answer: a longer one would grow an answer past what its budget counts. */
const MAX_ID_LENGTH = 128
const isId = (v: unknown): v is Id => (typeof v === 'string' && v.length <= MAX_ID_LENGTH) || (typeof v === 'number' && Number.isFinite(v))

/** What kind of message this is, or why it is not one. */
export function classify(message: unknown): 'request' | 'notification' | 'response' | JsonRpcError {
  if (!isObject(message) || message.jsonrpc !== '2.0') return rpcError(null, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message')
  const id = isId(message.id) ? message.id : null
  if (typeof message.method === 'string') {
    if (!('id' in message)) return 'notification'
    if (id === null)
      return rpcError(null, INVALID_REQUEST, `Invalid Request: id must be a number or a string of at most ${MAX_ID_LENGTH} characters`)
    if (message.params !== undefined && !isObject(message.params))
      return rpcError(id, INVALID_REQUEST, 'Invalid Request: params must be an object')
    return 'request'
  }
  if ('result' in message || 'error' in message) return 'response'
  return rpcError(id, INVALID_REQUEST, 'Invalid Request: no method')
}

/** Version negotiation (lifecycle): the client's version when we speak it, else our latest. */
export function negotiate(requested: unknown): string {
  return (PROTOCOL_VERSIONS as readonly unknown[]).includes(requested) ? (requested as string) : LATEST
}

/** Answers one request (already classified as such). */
export async function answer(request: Record<string, unknown>, handlers: Handlers): Promise<JsonRpcResponse> {
  const id = request.id as Id
  const params = (request.params ?? {}) as Record<string, unknown>
  const ok = (result: Record<string, unknown>): JsonRpcResponse => ({ jsonrpc: '2.0', id, result })
  switch (request.method) {
    case 'initialize':
      if (typeof params.protocolVersion !== 'string') return rpcError(id, INVALID_PARAMS, 'Invalid params: protocolVersion is required')
      return ok({
        protocolVersion: negotiate(params.protocolVersion),
        capabilities: { tools: { listChanged: false } },
        serverInfo: handlers.serverInfo,
        instructions: handlers.instructions,
      })
    case 'ping':
      return ok({})
    case 'tools/list':
      // Every tool fits one page: a cursor, if any, is ignored.
      return ok({ tools: handlers.listTools() })
    case 'tools/call': {
      if (typeof params.name !== 'string') return rpcError(id, INVALID_PARAMS, 'Invalid params: name is required')
      if (params.arguments !== undefined && !isObject(params.arguments)) {
        return rpcError(id, INVALID_PARAMS, 'Invalid params: arguments must be an object')
      }
      const result = await handlers.callTool(params.name, (params.arguments ?? {}) as Record<string, unknown>)
      return result ? ok(result) : rpcError(id, INVALID_PARAMS, `Unknown tool: ${params.name}`)
    }
    default:
      return rpcError(id, METHOD_NOT_FOUND, `Method not found: ${String(request.method)}`)
  }
}
