import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { clientOf } from './client-address.js'

/**
 * What one HTTP client may hold of the daemon: a few open connections, each for a bounded time. Node's
 * own defaults let a client that sends slowly keep a connection for good (Fastify turns Node's request
 * timeout off), and nothing counted connections per client.
 */

/** Headers must have arrived this long after a request starts (Node's default: 60 s). */
export const HEADERS_TIMEOUT_MS = 20_000
/** The whole request, body included: a 64 MiB import needs about 110 KiB/s to fit. */
export const REQUEST_TIMEOUT_MS = 600_000
/** An idle keep-alive connection is closed after this (Fastify's default, 72 s, held a slot longer). */
export const KEEP_ALIVE_TIMEOUT_MS = 30_000
/** How often Node checks the two timeouts above (its default, 30 s, let a 20 s timeout run to 50). */
export const CHECK_INTERVAL_MS = 2_000
/** A body that brings fewer than MIN_BODY_BYTES within BODY_WINDOW_MS is cut off with 408. */
export const BODY_WINDOW_MS = 10_000
export const MIN_BODY_BYTES = 1024
const CHECK_EVERY_MS = BODY_WINDOW_MS / 4
const LATE_CHECK_SLACK_MS = 1_000

/** Options for http.createServer (Fastify's `http`): Node reads these only at construction. */
export const serverOptions = { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: CHECK_INTERVAL_MS }

/**
 * At most `perClient` open connections per client (an IPv4 address, an IPv6 /64), peers `exempt` aside
 * (trusted proxies: every client behind them shares their address). One more is closed at once.
 */
export function capConnectionsPerClient(server: Server, perClient: number, exempt: (address: string) => boolean): void {
  const open = new Map<string, number>()
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? ''
    if (exempt(address)) return
    const client = clientOf(address)
    const count = open.get(client) ?? 0
    if (count >= perClient) return void socket.destroy()
    open.set(client, count + 1)
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1
      if (left > 0) open.set(client, left)
      else open.delete(client)
    })
  })
}

interface Watched {
  req: IncomingMessage
  res: ServerResponse
  socket: Socket
  since: number
  bytesAtSince: number
}

/**
 * Cuts off a request body that trickles (one byte every few seconds held a connection for good): each
 * BODY_WINDOW_MS it must bring MIN_BODY_BYTES or be complete, else the client gets 408 and the connection
 * closes, as Node answers its own request timeout. A body the daemon itself is not reading (its buffer
 * full) is not the client's fault and is left alone; an early answer (413, 401...) is left to the drain,
 * which has its own bounds (core/drain.ts). One timer for all requests while any body is being read; a
 * request without a body costs nothing.
 */
export function cutSlowBodies(server: Server, now: () => number = Date.now): void {
  const watched = new Set<Watched>()
  let timer: NodeJS.Timeout | undefined
  let lastCheck = 0
  const check = () => {
    const t = now()
    // A check that runs late ran after the daemon held its own loop (a large import, a busy machine): the
    // bodies' bytes wait unread in the kernel, which is not the clients' fault. Their windows start again.
    const late = t - lastCheck > CHECK_EVERY_MS + LATE_CHECK_SLACK_MS
    lastCheck = t
    for (const w of watched) {
      const { req, res, socket } = w
      if (req.complete || socket.destroyed || res.headersSent) {
        watched.delete(w)
        continue
      }
      if (late) {
        w.since = t
        w.bytesAtSince = socket.bytesRead
        continue
      }
      if (t - w.since < BODY_WINDOW_MS) continue
      const brought = socket.bytesRead - w.bytesAtSince
      if (brought < MIN_BODY_BYTES && req.readableLength === 0) {
        watched.delete(w)
        const err = Object.assign(new Error('request body too slow'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' })
        // The server's clientError handler answers 408 and closes, as for Node's own request timeout.
        server.emit('clientError', err, socket)
        continue
      }
      w.since = t
      w.bytesAtSince = socket.bytesRead
    }
    if (watched.size === 0 && timer) {
      clearInterval(timer)
      timer = undefined
    }
  }
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.complete) return
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0
    if (!hasBody) return
    const w = { req, res, socket: req.socket, since: now(), bytesAtSince: req.socket.bytesRead }
    watched.add(w)
    req.once('close', () => watched.delete(w))
    if (!timer) {
      lastCheck = now()
      timer = setInterval(check, CHECK_EVERY_MS).unref()
    }
  })
}
