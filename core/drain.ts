import type { IncomingMessage } from 'node:http'

/** A body this size or under is read to its end before an early answer; a larger one is cut off. */
export const MAX_DRAIN_BYTES = 64 * 1024 * 1024
const MAX_DRAIN_MS = 10_000

/**
 * Reads and discards what is left of a request body the daemon answers without reading (413, 401,
 * 415...). Closing the socket with unread bytes makes the kernel reset the connection, and a client
 * still sending then sees EPIPE instead of the answer. Bounded in bytes and time: past either, the
 * answer goes out and the connection closes.
 */
export function drainBody(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve()
  const declared = Number(raw.headers['content-length'] ?? 0)
  if (declared > MAX_DRAIN_BYTES) return Promise.resolve()
  // Without Content-Length or Transfer-Encoding a request has no body (RFC 9112, 6.3): nothing to wait
  // for, though a refusal given in the request event itself comes before Node has marked it complete.
  if (declared === 0 && raw.headers['transfer-encoding'] === undefined) return Promise.resolve()
  return new Promise((resolve) => {
    let seen = 0
    const done = () => {
      clearTimeout(timer)
      raw.off('data', count)
      raw.off('end', done)
      raw.off('error', done)
      raw.off('close', done)
      resolve()
    }
    const count = (chunk: Buffer) => {
      seen += chunk.length
      if (seen > MAX_DRAIN_BYTES) done()
    }
    const timer = setTimeout(done, MAX_DRAIN_MS)
    raw.on('data', count)
    raw.once('end', done)
    raw.once('error', done)
    raw.once('close', done)
    raw.resume()
  })
}
