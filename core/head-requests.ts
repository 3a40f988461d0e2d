import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * HEAD answered by the GET route instead of by a twin route per GET.
 *
 * Fastify's `exposeHeadRoutes` (on by default) registers a HEAD route beside every GET route: its own
 * context, hook arrays, bound functions and response-serializer map, about 0.5 MB of idle RSS for the
 * daemon's routes (docs/performance.md, sixth pass). Here those twins are off and a HEAD request is
 * routed as a GET before Fastify's router sees it. `rewriteUrl` is the one place Fastify calls for
 * every request before routing, `inject` included (swagger-ui's tests and a client of inject get the
 * same answer as one over HTTP); the server is Fastify's own (its timeouts, forced closing and second
 * bindings are untouched).
 *
 * The answer is the twin's: Node's response (and light-my-request's) already knows the request was a
 * HEAD and sends no body; Fastify sets content-length from the payload as it does for GET (the twin's
 * onSend did the same, and '0' for no payload). A route that declares HEAD itself keeps it: while one
 * exists, a HEAD request is routed as GET only when no HEAD route matches its path.
 *
 * Logs, metrics and the 404 message still say HEAD: `sentMethod` reads the mark left on the raw request.
 * A HEAD asking for an upgrade (Upgrade header) is left HEAD: no route answers it (404), as a WebSocket
 * handshake must be a GET (before, the twin route answered 426).
 */
const SENT_HEAD = Symbol('hearth.sentHead')
type Raw = IncomingMessage & { [SENT_HEAD]?: true }

/** Fastify options: no twin routes, HEAD routed as GET. */
export function headAsGet(): {
  exposeHeadRoutes: false
  rewriteUrl: (this: FastifyInstance, req: IncomingMessage) => string
  install: (app: FastifyInstance) => void
} {
  // Routes that declare HEAD themselves; none of the daemon's do, a third-party plugin's may.
  let declared = 0
  return {
    exposeHeadRoutes: false,
    rewriteUrl(this: FastifyInstance, req: Raw): string {
      // The only work a GET or POST pays: one comparison. An upgrade request stays HEAD (RFC 6455: a WebSocket
      // handshake is a GET; @fastify/websocket upgrades whatever reaches a GET websocket route).
      if (
        req.method === 'HEAD' &&
        req.headers.upgrade === undefined &&
        (declared === 0 || this.findRoute({ method: 'HEAD', url: pathOf(req.url), constraints: constraintsOf(req) }) === null)
      ) {
        req.method = 'GET'
        req[SENT_HEAD] = true
      }
      return req.url as string
    },
    install(app) {
      app.addHook('onRoute', (route) => {
        if ([route.method].flat().includes('HEAD')) declared++
      })
    },
  }
}

/** The method as the client sent it: HEAD for a HEAD routed as GET. */
export function sentMethod(request: FastifyRequest | { raw?: IncomingMessage; method: string }): string {
  return (request.raw as Raw | undefined)?.[SENT_HEAD] === true ? 'HEAD' : request.method
}

/** What Fastify's router derives from a request by default: a HEAD route may be declared for a host or a version. */
function constraintsOf(req: IncomingMessage): Record<string, string> {
  const constraints: Record<string, string> = {}
  if (typeof req.headers.host === 'string') constraints.host = req.headers.host
  const version = req.headers['accept-version']
  if (typeof version === 'string') constraints.version = version
  return constraints
}

function pathOf(url = ''): string {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}
