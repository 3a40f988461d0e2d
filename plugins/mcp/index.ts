import { definePlugin, HttpError, Type } from '../../core/plugin-api.js'
import { dropEmpty, type RecordsPluginService } from '../records/public.js'
import { callTool, type CallContext } from './call.js'
import type { Handlers } from './jsonrpc.js'
import { originAllowed, parseAllowList } from './origin.js'
import { buildTools, listed } from './tools.js'
import { pacedStream } from '../../lib/paced-stream.js'
import { handlePost, MAX_BATCH, PARSE_FAILED } from './transport.js'
import { ByteBudget } from '../../lib/byte-budget.js'

const Config = Type.Object({
  /** Browser origins besides loopback and this machine's addresses that may call the MCP endpoint (comma-separated). */
  allowedOrigins: Type.String({ default: '', maxLength: 4000, env: 'HEARTH_MCP_ALLOWED_ORIGINS' }),
})

const INSTRUCTIONS = `Hearth holds this household's notes, contacts, calendar and tasks. Use search to find records (full text with filters), calendar for what is on in a time range (recurring events expanded), due_tasks for what is to be done, get_* to read one record, and the create/update/delete tools to change them. Answers are compact unless a tool is called with format "full".`

/** MCP (Model Context Protocol) at POST /api/v1/mcp: the records routes as tools for AI agents (README.md). */
export default definePlugin(
  {
    name: 'mcp',
    version: '1.0.0',
    apiVersion: '^1.0.0',
    description: 'Model Context Protocol server: the records API as tools for AI agents',
    dependencies: ['records'],
    prefix: '',
    // Agent and system keys: sync (and DAV) keys serve other clients.
    scope: 'agents',
    config: Config,
  },
  async (app, api) => {
    const allowList = parseAllowList(api.config.allowedOrigins)
    const { service } = api.services.get<RecordsPluginService>('records')
    // Built now, from the routes the records plugin registered: a missing route stops the start.
    const bound = new Map(buildTools((id) => api.routes.get(id)).map((b) => [b.tool.name, b]))
    const tools = listed([...bound.values()])
    const compact: CallContext['compact'] = (resource, record) => dropEmpty(service.definition(resource).compact(record as never))

    // DNS rebinding: refuse a foreign browser Origin before anything else is looked at.
    app.addHook('onRequest', async (request) => {
      const origin = request.headers.origin
      if (origin !== undefined && !originAllowed(origin, allowList)) {
        throw new HttpError('FORBIDDEN', `Origin ${origin.slice(0, 200)} may not call the MCP endpoint`)
      }
    })
    // JSON-RPC wants its own parse error (-32700), not the API's VALIDATION_ERROR envelope; Fastify's
    // parser still does the reading (prototype-poisoning keys refused like everywhere else).
    const json = app.getDefaultJsonParser('error', 'error')
    app.removeContentTypeParser('application/json')
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
      json(req, body as string, (err, value) => done(null, err ? PARSE_FAILED : value)),
    )

    app.post(
      '/mcp',
      {
        schema: {
          operationId: 'mcp.post',
          summary: 'Send an MCP message (JSON-RPC 2.0)',
          description: `Model Context Protocol, streamable HTTP transport, stateless: initialize, ping, tools/list, tools/call; every answer is one JSON document (never an SSE stream), 202 for notifications. Batches (up to ${MAX_BATCH} messages; more → 400 with a JSON-RPC error) only under protocol 2025-03-26. One tool result is at most 1 MiB (a list says \`next_offset\`); the whole answer is at most the answer budget (HEARTH_ANSWER_BUDGET): the calls of a batch past it answer JSON-RPC error -32000 without running. A protocol failure answers 400 with a JSON-RPC error; a failed tool answers \`isError\` with the REST error code. Each tool call is a REST request with the caller's token (same scopes, rate limit, validation and events). GET and DELETE answer 405 (\`Allow: POST\`). A browser \`Origin\` other than loopback, this machine or HEARTH_MCP_ALLOWED_ORIGINS → 403. Sync keys → 403 INSUFFICIENT_SCOPE. See docs/agents.md.`,
          body: Type.Unknown({ description: 'one JSON-RPC message (request, notification or response), or a batch under 2025-03-26' }),
          response: {
            200: Type.Unknown({ description: 'the JSON-RPC response (an array of them for a batch), or a JSON-RPC error' }),
            202: Type.Null({ description: 'accepted: the message needed no answer (notification or response)' }),
            400: Type.Unknown({
              description: 'a JSON-RPC error without id: not JSON, not a JSON-RPC message, an unsupported MCP-Protocol-Version',
            }),
          },
        },
        config: { envelope: 'none' },
      },
      async (request, reply) => {
        const handlers: Handlers = {
          serverInfo: { name: 'hearth', title: 'Hearth', version: api.coreVersion },
          instructions: INSTRUCTIONS,
          listTools: () => tools,
          callTool: async (name, args) => {
            const tool = bound.get(name)
            return tool ? callTool({ app, request, compact }, tool, args) : null
          },
        }
        const header = request.headers['mcp-protocol-version']
        const answer = await handlePost(
          request.body,
          typeof header === 'string' ? header : undefined,
          handlers,
          (err) => request.log.error({ err }, 'MCP request failed'),
          new ByteBudget(request.answerBudget),
        )
        reply.code(answer.status).type('application/json')
        // Written as the client reads, the event loop given back between the responses.
        if (answer.pieces !== undefined) return reply.send(pacedStream(answer.pieces))
        return answer.body === undefined ? reply.send() : reply.send(JSON.stringify(answer.body))
      },
    )

    // Stateless JSON answers: no server-initiated SSE stream, no session to end (the transport's 405).
    for (const method of ['GET', 'DELETE'] as const) {
      app.route({
        method,
        url: '/mcp',
        // Not an operation (nothing succeeds): out of the OpenAPI document, described under POST.
        schema: { hide: true },
        config: { errors: ['FORBIDDEN', 'METHOD_NOT_ALLOWED'] },
        handler: async () => {
          throw new HttpError('METHOD_NOT_ALLOWED', 'The MCP endpoint takes POST only (stateless, JSON answers)', undefined, {
            allow: 'POST',
          })
        },
      })
    }
  },
)
