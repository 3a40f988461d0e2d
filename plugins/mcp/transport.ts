import {
  answer,
  ASSUMED_WITHOUT_HEADER,
  classify,
  type Handlers,
  type Id,
  INVALID_REQUEST,
  type JsonRpcError,
  type JsonRpcResponse,
  PARSE_ERROR,
  PROTOCOL_VERSIONS,
  rpcError,
} from './jsonrpc.js'
import type { ByteBudget } from '../../lib/byte-budget.js'

/**
 * The POST side of MCP's streamable HTTP transport, stateless and answering
 * plain JSON (never an SSE stream): one message per POST, or a batch under
 * protocol 2025-03-26, the only revision that had them. Answers what the
 * route sends: 200 with the response(s), 202 when nothing needed an answer,
 * 400 with a JSON-RPC error for what is not a valid message.
 */
export const PARSE_FAILED = Symbol('mcp.parse-failed')
/** Enough for any agent's batch; bounds the work one POST can ask for (16 results of at most 1 MiB). */
export const MAX_BATCH = 16
/** What a call past the spent answer budget answers instead of running (JSON-RPC's server-error range). */
export const BUDGET_SPENT = -32000
/** Room kept in the budget for the short answers of calls that can no longer run. */
const RESERVE_PER_CALL = 256

export interface HttpAnswer {
  status: 200 | 202 | 400
  body?: JsonRpcResponse | JsonRpcError
  /**
   * A batch's answer as the pieces of its text (`[`, the responses with their commas, `]`): each
   * response is serialized once, as it is made, and the route streams the pieces instead of joining
   * them (a batch answer is up to the answer budget, 16 MiB).
   */
  pieces?: string[]
}

/**
 * `budget`: the bytes the whole answer may take. A batch's responses are written one by one; a
 * call whose response would pass the budget is not kept, and it and every call after it answer
 * BUDGET_SPENT without running (send them again in another POST).
 */
export async function handlePost(
  body: unknown,
  protocolHeader: string | undefined,
  handlers: Handlers,
  onError: (err: unknown) => void,
  budget: ByteBudget,
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
  const parts: string[] = []
  budget.take(2 + RESERVE_PER_CALL * body.length)
  let spent = false
  // In order: a batch that creates then updates a record sees its own writes.
  for (const message of body) {
    const kind = classify(message)
    let response: JsonRpcResponse | undefined
    let text: string | undefined
    if (typeof kind === 'object') response = kind
    else if (kind === 'request') {
      const id = (message as { id: string }).id
      if ((message as { method: string }).method === 'initialize')
        response = rpcError(id, INVALID_REQUEST, 'initialize cannot be part of a batch')
      else if (spent) response = notRun(id)
      else {
        // The event loop is shared (DNS, /health): other work runs between the calls of a batch.
        await new Promise((resolve) => setImmediate(resolve))
        response = await safely(message as Record<string, unknown>, handlers, onError)
        text = JSON.stringify(response)
        if (!budget.take(Buffer.byteLength(text) + 1)) {
          spent = true
          response = notRun(id)
          text = undefined
        }
      }
    }
    if (response) parts.push(text ?? JSON.stringify(response))
  }
  return parts.length ? { status: 200, pieces: ['[', ...parts.flatMap((part, i) => (i ? [',', part] : [part])), ']'] } : { status: 202 }
}

const notRun = (id: Id): JsonRpcError =>
  rpcError(id, BUDGET_SPENT, 'Not answered: the answer to this batch reached its size limit before this call. Send it again on its own.')

async function safely(request: Record<string, unknown>, handlers: Handlers, onError: (err: unknown) => void): Promise<JsonRpcResponse> {
  try {
    return await answer(request, handlers)
  } catch (err) {
    onError(err)
    return rpcError(request.id as string, -32603, 'Internal error')
  }
}
