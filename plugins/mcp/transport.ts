import {
  answer,
  ASSUMED_WITHOUT_HEADER,
  classify,
  type Handlers,
  INVALID_REQUEST,
  type JsonRpcError,
  type JsonRpcResponse,
  PARSE_ERROR,
  PROTOCOL_VERSIONS,
  rpcError,
} from './jsonrpc.js'

/**
 * The POST side of MCP's streamable HTTP transport, stateless and answering
 * plain JSON (never an SSE stream): one message per POST, or a batch under
 * protocol 2025-03-26, the only revision that had them. Answers what the
 * route sends: 200 with the response(s), 202 when nothing needed an answer,
 * 400 with a JSON-RPC error for what is not a valid message.
 */
export const PARSE_FAILED = Symbol('mcp.parse-failed')
/** Enough for any agent's batch; bounds the work one POST can ask for. */
export const MAX_BATCH = 32

export interface HttpAnswer {
  status: 200 | 202 | 400
  body?: JsonRpcResponse | JsonRpcResponse[] | JsonRpcError
}

export async function handlePost(
  body: unknown,
  protocolHeader: string | undefined,
  handlers: Handlers,
  onError: (err: unknown) => void,
): Promise<HttpAnswer> {
  if (body === PARSE_FAILED) return { status: 400, body: rpcError(null, PARSE_ERROR, 'Parse error: the body is not JSON') }
  if (protocolHeader !== undefined && !(PROTOCOL_VERSIONS as readonly string[]).includes(protocolHeader)) {
    return {
      status: 400,
      body: rpcError(
        null,
        INVALID_REQUEST,
        `Unsupported MCP-Protocol-Version ${protocolHeader} (supported: ${PROTOCOL_VERSIONS.join(', ')})`,
      ),
    }
  }
  if (!Array.isArray(body)) {
    const kind = classify(body)
    if (typeof kind === 'object') return { status: 400, body: kind }
    if (kind !== 'request') return { status: 202 }
    return { status: 200, body: await safely(body as Record<string, unknown>, handlers, onError) }
  }
  const version = protocolHeader ?? ASSUMED_WITHOUT_HEADER
  if (version >= '2025-06-18')
    return { status: 400, body: rpcError(null, INVALID_REQUEST, `JSON-RPC batches are not part of MCP ${version}`) }
  if (body.length === 0 || body.length > MAX_BATCH) {
    return { status: 400, body: rpcError(null, INVALID_REQUEST, `A batch holds 1 to ${MAX_BATCH} messages`) }
  }
  const answers: JsonRpcResponse[] = []
  // In order: a batch that creates then updates a record sees its own writes.
  for (const message of body) {
    const kind = classify(message)
    if (typeof kind === 'object') answers.push(kind)
    else if (kind === 'request') {
      if ((message as { method: string }).method === 'initialize') {
        answers.push(rpcError((message as { id: string }).id, INVALID_REQUEST, 'initialize cannot be part of a batch'))
      } else answers.push(await safely(message as Record<string, unknown>, handlers, onError))
    }
  }
  return answers.length ? { status: 200, body: answers } : { status: 202 }
}

async function safely(request: Record<string, unknown>, handlers: Handlers, onError: (err: unknown) => void): Promise<JsonRpcResponse> {
  try {
    return await answer(request, handlers)
  } catch (err) {
    onError(err)
    return rpcError(request.id as string, -32603, 'Internal error')
  }
}
