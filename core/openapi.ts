import swagger from '@fastify/swagger'
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { RouteGuards } from './auth/context.js'
import { registerDocsUi } from './docs-ui.js'
import { errorEntry } from './errors.js'
import { routeErrors } from './route-pipeline.js'
import { ErrorBody } from './schemas.js'

/**
 * OpenAPI 3.0.3 from the routes' TypeBox schemas and what the route pipeline
 * derived (operationId, security, access notes); served at /api/v1/openapi.json
 * and browsable at /api/v1/docs. The error answers of each operation come from
 * the guards and schemas of the route (routeErrors), described with the catalogue's messages.
 */
export interface OpenApiOptions {
  version: string
  /** Descriptions of the tags the routes use (plugin manifests). */
  tags: ReadonlyMap<string, string>
}

const DESCRIPTION = `The HTTP JSON API of a Hearth appliance: a household's notes, contacts and calendar, its DNS, disks, reverse proxy, TLS and VPN.

## Envelope
A record answers \`{ "data": ... }\`; a paged list \`{ "data": [...], "meta": { "total", "limit", "offset" }, "tier" }\`; every error \`{ "error": { "code", "message", "details"? } }\` with the codes listed under each operation.

## Authentication
Every non-public operation takes \`Authorization: Bearer <token>\`, one of three kinds (see the security schemes): a user's access token (JWT) from \`POST /api/v1/auth/login\`, an API key (\`clk_...\`) with a scope, or the system token of the appliance. The system token and system or sync API keys name the user they act for with \`X-Svc-User-Id\` in multi-user mode. Each operation states the API-key scopes, role and tier it needs (also as \`x-hearth-scope\`, \`x-hearth-role\`, \`x-hearth-tier\`).

## Realtime
\`GET /api/v1/ws\` upgrades to a WebSocket (not a JSON route, so not listed below). Authenticate with the Authorization header, or \`?token=<token>\` where a browser cannot set headers. The server sends \`{ "type": "<record>.<action>", "id", "at", "seq", "data" }\` for each change of the caller's records; a client narrows the stream with \`{ "subscribe": ["note.*"] }\` (or \`?subscribe=note.*,event.*\` at connect). \`seq\` increases per instance: reconnect with \`?since=<seq>\` to get the events missed meanwhile first (from a bounded journal), or \`{ "type": "resync_required" }\` as the first message when the journal no longer reaches back that far. Without a WebSocket upgrade the endpoint answers 426 UPGRADE_REQUIRED.

## Optimistic concurrency
Every note, contact and event carries \`etag\` (single answers also send the \`ETag\` header); every write changes it. Send it back in \`If-Match\` on PATCH, PATCH /custom, archive/unarchive, DELETE and restore: a record changed since answers 412 PRECONDITION_FAILED.

## CalDAV and CardDAV
Served under \`/dav/\` on this port (not JSON routes, so not listed below): WebDAV methods (PROPFIND, REPORT, MKCALENDAR, GET, PUT, DELETE...) over the same notes, contacts and events. \`/.well-known/caldav\` and \`/.well-known/carddav\` redirect to \`/dav/\`, which answers \`current-user-principal\`. Clients sign in with HTTP Basic: the user's email and an API key of scope \`dav\` (a dav key reaches nothing else). One address book (the contacts), one calendar per \`calendar_name\`; ETags are the records' \`etag\`.

## MCP
Agents speak the Model Context Protocol at \`POST /api/v1/mcp\` (streamable HTTP, stateless JSON-RPC; a Bearer token, agent keys intended; a browser \`Origin\` must be the appliance's own). Each tool runs the REST operation it stands for. Listed below as an operation; its tools are in docs/agents.md.`

const SECURITY_SCHEMES = {
  userToken: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "A user's access token from POST /api/v1/auth/login (24 hours; renew with POST /api/v1/auth/refresh). Acts as that user.",
  },
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'clk_<32 hex>',
    description:
      'An API key, created by an admin (POST /api/v1/admin/api-keys). Scope agent acts as the key owner; scopes system and sync act for the user named in X-Svc-User-Id (required in multi-user mode).',
  },
  systemToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      "The appliance's system token (HEARTH_SYSTEM_TOKEN), for the OS and internal tools; acts with owner rights for the user named in X-Svc-User-Id.",
  },
}

const STATUS_TEXT: Record<string, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Service unavailable',
}

/** The documented error answers of one operation, grouped by status, each naming its codes. */
function errorResponses(codes: string[]): Record<string, unknown> {
  const byStatus = new Map<number, string[]>()
  for (const code of codes) {
    const status = errorEntry(code)?.status ?? 500
    byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  }
  const responses: Record<string, unknown> = {}
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const first = list[0] as string
    responses[status] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${list.map((c) => `\`${c}\` (${errorEntry(c)?.message})`).join(', ')}`,
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/ErrorResponse' },
          example: { error: { code: first, message: errorEntry(first)?.message } },
        },
      },
    }
  }
  return responses
}

const UserHeader = {
  type: 'object',
  properties: {
    'x-svc-user-id': {
      type: 'string',
      format: 'uuid',
      description:
        'The user a system token or a system/sync API key acts for (required in multi-user mode; ignored for agent keys and user tokens)',
    },
  },
}

function withUserHeader(declared: unknown): object {
  if (!declared || typeof declared !== 'object') return UserHeader
  const schema = declared as { properties?: object }
  return { ...schema, properties: { ...UserHeader.properties, ...schema.properties } }
}

export async function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Hearth API',
        version: options.version,
        description: DESCRIPTION,
        license: { name: 'MIT', url: 'https://opensource.org/license/mit' },
      },
      servers: [{ url: '/', description: 'This appliance' }],
      components: { securitySchemes: SECURITY_SCHEMES as never },
    },
    hideUntagged: false,
    transform: ({ schema, url: registered, route }) => {
      // A plugin's '/' route answers at /api/v1/<name> too: document the form without the slash.
      const url = registered.length > 1 ? registered.replace(/\/$/, '') : registered
      const given = (schema ?? {}) as Record<string, unknown>
      if (given.hide) return { schema: given as never, url }
      const config = ((route as RouteOptions).config ?? {}) as RouteGuards
      const documented: Record<string, unknown> = {
        ...given,
        response: {
          ...(given.response as Record<string, unknown> | undefined),
          ...errorResponses(routeErrors(config, given)),
        },
      }
      // A route's own headers (If-Match) are documented beside the user header, not instead of it.
      if (config.auth !== false && config.userContext !== false) documented.headers = withUserHeader(given.headers)
      if (config.upload) {
        documented.consumes = ['multipart/form-data']
        documented.body = {
          type: 'object',
          required: [config.upload],
          properties: { [config.upload]: { type: 'string', format: 'binary', description: 'the file' } },
        }
      }
      return { schema: documented as never, url }
    },
    transformObject: (document) => finish((document as { openapiObject: OpenApiDocument }).openapiObject, options) as never,
  })
  // The docs UI is set up on its first request (core/docs-ui.ts), not here at every start.
  registerDocsUi(app)
  app.get('/api/v1/openapi.json', { config: { auth: false, envelope: 'none' }, schema: { hide: true } }, async () => app.swagger())
}

interface Operation {
  tags?: string[]
  parameters?: Array<{ required?: boolean; schema?: { default?: unknown } }>
  responses?: Record<string, { description?: string }>
}
interface OpenApiDocument {
  components?: { schemas?: Record<string, unknown> }
  tags?: Array<{ name: string; description: string }>
  paths?: Record<string, Record<string, Operation>>
}

const SUCCESS: Record<string, string> = { 200: 'OK', 201: 'Created', 204: 'No content' }

/** Document-wide touches: the shared error schema, the tags in use with their descriptions, optional parameters. */
function finish(doc: OpenApiDocument, options: OpenApiOptions): OpenApiDocument {
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ErrorResponse: errorSchema() } }
  const used = new Set<string>()
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(operations)) {
      op.tags?.forEach((t) => used.add(t))
      // A parameter with a default may be left out: the server fills it in.
      for (const p of op.parameters ?? []) if (p.schema?.default !== undefined) p.required = false
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (response.description === 'Default Response') response.description = SUCCESS[status] ?? 'OK'
      }
    }
  }
  doc.tags = [...used].sort().map((name) => ({ name, description: options.tags.get(name) ?? name }))
  singleExamples(doc.paths)
  return doc
}

/** OpenAPI 3.0 schemas take one `example`; JSON Schema's `examples` array is left deep inside unions by the converter. */
function singleExamples(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(singleExamples)
  if (!node || typeof node !== 'object') return
  const object = node as Record<string, unknown>
  if (Array.isArray(object.examples)) {
    object.example ??= object.examples[0]
    delete object.examples
  }
  Object.values(object).forEach(singleExamples)
}

function errorSchema(): object {
  const { $id: _id, ...schema } = JSON.parse(JSON.stringify(ErrorBody)) as { $id?: string }
  return { ...schema, description: 'The error envelope of every failed request' }
}
