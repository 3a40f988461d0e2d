import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

/**
 * The browsable API docs at /api/v1/docs (swagger-ui), set up on their first request instead of at start.
 * Registering @fastify/swagger-ui loads it with @fastify/static, yaml and their dependencies: about 30 ms
 * of every start and several MB of heap for a page most starts never serve. Here the main app keeps
 * stand-in routes at the same paths; the first request builds a small Fastify instance holding
 * swagger-ui exactly as before (same options, same files, headers and redirects) and each docs request
 * is answered from it through inject. The document itself (/api/v1/docs/json) is answered directly,
 * as swagger-ui answered it: app.swagger().
 */
const PREFIX = '/api/v1/docs'
const UI_OPTIONS = { routePrefix: PREFIX, uiConfig: { deepLinking: true } }
// Hop-by-hop or recomputed by the main app's reply.
const NOT_COPIED = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'])

export function registerDocsUi(app: FastifyInstance): void {
  let ui: Promise<FastifyInstance> | undefined
  const build = async (): Promise<FastifyInstance> => {
    const { default: swaggerUi } = await import('@fastify/swagger-ui')
    const instance = Fastify({ logger: false })
    // swagger-ui depends on @fastify/swagger by name and reads the document through `swagger()`.
    await instance.register(
      fp(
        async (i) => {
          i.decorate('swagger', ((opts?: object) => app.swagger(opts as never)) as never)
        },
        { name: '@fastify/swagger' },
      ),
    )
    await instance.register(swaggerUi, UI_OPTIONS)
    await instance.ready()
    return instance
  }

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    ui ??= build().catch((err: unknown) => {
      ui = undefined
      throw err
    })
    // Always a GET: Fastify answers a HEAD through the GET route and sends no body for it.
    // The request's headers (If-None-Match, Range...) without those of a body it does not forward.
    const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = request.headers
    const answer = await (await ui).inject({ method: 'GET', url: request.url, headers })
    // A missing asset gets the daemon's own 404 envelope, as it did when swagger-ui was registered here.
    if (answer.statusCode === 404) return reply.callNotFound()
    reply.code(answer.statusCode)
    for (const [name, value] of Object.entries(answer.headers)) if (!NOT_COPIED.has(name) && value !== undefined) reply.header(name, value)
    return reply.send(answer.rawPayload.length ? answer.rawPayload : undefined)
  }

  const hidden = { schema: { hide: true } }
  app.get(`${PREFIX}/json`, hidden, async () => app.swagger())
  app.get(PREFIX, hidden, serve)
  app.get(`${PREFIX}/*`, hidden, serve)
}
