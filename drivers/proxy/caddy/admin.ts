import { request } from 'node:http'

/** Caddy's admin API over TCP (loopback) or a unix socket: `http://127.0.0.1:2019` or `unix:/run/caddy/admin.sock`. */
export interface AdminEndpoint {
  socketPath?: string
  host?: string
  port?: number
}

/** Parses HEARTH_CADDY_ADMIN; anything but loopback or a unix socket is refused (the admin API has no authentication). */
export function parseAdmin(value: string): AdminEndpoint {
  if (value.startsWith('unix:')) return { socketPath: value.slice(5) }
  const url = new URL(value)
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) throw new Error(`HEARTH_CADDY_ADMIN must be loopback or unix:, not ${value}`)
  return { host, port: Number(url.port || 2019) }
}

/** What Caddy must keep in its config's `admin.listen` so a load does not move the admin endpoint. */
export function adminListen(e: AdminEndpoint): string {
  return e.socketPath ? `unix/${e.socketPath}` : `${e.host === '::1' ? '[::1]' : e.host}:${e.port}`
}

export class CaddyUnreachable extends Error {}

/** Caddy answers, but cannot listen on the proxy's ports. */
export class ProxyPortError extends Error {
  override name = 'ProxyPortError'
}

/** One admin API call; the status and body, or CaddyUnreachable when nothing answers. */
export function admin(
  e: AdminEndpoint,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body))
    const req = request(
      {
        ...(e.socketPath ? { socketPath: e.socketPath } : { host: e.host, port: e.port }),
        method,
        path,
        // Caddy checks the Host of admin requests; on a unix socket it must be empty.
        headers: {
          host: e.socketPath ? '' : `${e.host}:${e.port}`,
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
        timeout: timeoutMs,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text = (text + c).slice(-65536)))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.on('timeout', () => req.destroy(new CaddyUnreachable('Caddy did not answer in time')))
    req.on('error', (err) =>
      reject(err instanceof CaddyUnreachable ? err : new CaddyUnreachable(`Caddy's admin API is unreachable: ${err.message}`)),
    )
    req.end(payload)
  })
}
