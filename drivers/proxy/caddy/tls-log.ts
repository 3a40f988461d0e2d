import { createSocket } from 'node:dgram'

/** How many names' failures are remembered: far more than a home has routes, and a bound on memory. */
const MAX_NAMES = 1024

export interface TlsLog {
  /** Where Caddy's `net` log writer sends: `udp/127.0.0.1:<port>`. */
  address: string
  /** The last issuance failure per name that has not been followed by a success. */
  errors(): Map<string, string>
  close(): Promise<void>
}

/**
 * Caddy's TLS log, received as UDP datagrams on a loopback port Hearth picks: Caddy's admin API says
 * nothing of failed issuances, and Caddy (its own user) and Hearth share no folder a log file could
 * sit in. UDP because Caddy dials its log writer when it loads a config: a datagram socket always
 * "connects", so a config Caddy resumes while Hearth is down still loads. One datagram holds one JSON
 * entry (at most 64 KiB); each is parsed once. Any local process could send a line here: the most it
 * can do is show or clear an error in SSL status, never change what Caddy serves.
 */
export async function listenTlsLog(): Promise<TlsLog> {
  const failures = new Map<string, string>()
  const socket = createSocket('udp4')
  socket.on('message', (datagram) => {
    for (const line of datagram.toString('utf8').split('\n')) fold(failures, line)
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject)
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject)
      resolve()
    })
  })
  // A datagram socket has no peer to fail; an error here is the socket's own and ends it.
  socket.on('error', () => socket.close())
  // Listening alone never keeps the process alive: the daemon's server does.
  socket.unref()
  return {
    address: `udp/127.0.0.1:${socket.address().port}`,
    errors: () => new Map(failures),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  }
}

/** One of Caddy's JSON log entries (`identifier`, `msg`, `error`) folded into the failures per name. */
function fold(failures: Map<string, string>, line: string): void {
  if (!line) return
  let entry: { identifier?: unknown; error?: unknown; msg?: unknown }
  try {
    entry = JSON.parse(line)
  } catch {
    return
  }
  if (typeof entry !== 'object' || entry === null || typeof entry.identifier !== 'string') return
  const name = entry.identifier.slice(0, 253)
  if (entry.msg === 'certificate obtained successfully') failures.delete(name)
  else if (typeof entry.error === 'string' && entry.msg === 'could not get certificate from issuer') {
    failures.delete(name)
    if (failures.size >= MAX_NAMES) failures.delete(failures.keys().next().value as string)
    failures.set(name, entry.error.slice(0, 500))
  }
}
