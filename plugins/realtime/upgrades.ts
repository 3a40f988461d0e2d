import type { Server } from 'node:http'
import type { Duplex } from 'node:stream'

/**
 * @fastify/websocket routes every HTTP upgrade request through Fastify, for
 * any path. For a path that is not a WebSocket route the normal handler
 * answers, but nothing closes the detached socket afterwards (Node's HTTP
 * server no longer tracks it), so a client could park sockets forever and
 * keep the daemon from exiting. Those sockets are cut after a short idle
 * time, and at close. So is any upgrade request to the WebSocket path that
 * is not a GET (a HEAD: no route answers it, RFC 6455 handshakes are GETs).
 */
const IDLE_MS = 2000

export function reapForeignUpgrades(server: Server, wsPath: string): { closeAll(): void } {
  const parked = new Set<Duplex>()
  const onUpgrade = (req: { method?: string; url?: string }, socket: Duplex) => {
    if (req.method === 'GET' && (req.url ?? '').split('?')[0] === wsPath) return
    parked.add(socket)
    socket.once('close', () => parked.delete(socket))
    if ('setTimeout' in socket && typeof socket.setTimeout === 'function') {
      socket.setTimeout(IDLE_MS, () => socket.destroy())
    }
  }
  server.on('upgrade', onUpgrade)
  return {
    closeAll() {
      server.removeListener('upgrade', onUpgrade)
      for (const socket of parked) socket.destroy()
      parked.clear()
    },
  }
}
