import http from 'node:http'
import net, { type AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'

/** The port of an app listening on loopback (started here when it is not yet). */
export async function listening(app: FastifyInstance): Promise<number> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' })
  return (app.server.address() as AddressInfo).port
}

export interface Answer {
  status: number | string
  headers: http.IncomingHttpHeaders
  body: string
}

/**
 * One HTTP request over a new connection from a chosen loopback address (127.0.0.2, 127.0.0.3...: each
 * is another client to the daemon, as two machines would be). A connection error is the status.
 */
export function requestFrom(
  port: number,
  from: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const data = opts.body === undefined ? undefined : JSON.stringify(opts.body)
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        localAddress: from,
        agent: false,
        headers: {
          ...opts.headers,
          ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}),
        },
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: `error ${e.code}`, headers: {}, body: '' }))
    req.end(data)
  })
}

export const basicAuth = (email: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`,
})

/** A raw TCP connection from `from`, resolved once connected; `gone` settles when the server closes it. */
export function rawSocket(port: number, from: string): Promise<net.Socket & { gone: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress: from }) as net.Socket & { gone: Promise<void> }
    socket.gone = new Promise((done) => socket.once('close', () => done()))
    socket.on('error', () => {})
    socket.once('connect', () => resolve(socket))
    socket.once('close', () => resolve(socket))
  })
}
