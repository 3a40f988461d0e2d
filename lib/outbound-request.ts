import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { guardedLookup, hostOf, isPrivateAddress, OutboundError, type TargetPolicy } from './outbound-address.js'

/**
 * One HTTP request to a URL someone gave (a sync connector's server, a digest webhook), through the
 * outbound-address policy: a literal address is judged here, a name where the socket opens (every
 * request and every redirect hop), the answer is read up to a byte limit, and credentials are never
 * sent on a redirect to another origin.
 */
export interface OutboundRequest {
  method?: string
  headers?: Record<string, string>
  body?: string | Buffer
  policy: TargetPolicy
  timeoutMs?: number
  /** Answers larger than this are cut off with an error. */
  maxBytes?: number
  /** Redirects followed (each hop checked again); 0 returns the 3xx. */
  maxRedirects?: number
}

export interface OutboundResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
  /** The URL that answered (after redirects). */
  url: string
}

/** Never throws on a status, only on transport or policy failures (OutboundError for the policy's and the limits'). */
export async function outbound(target: string | URL, opts: OutboundRequest): Promise<OutboundResponse> {
  let url = new URL(target)
  for (let hop = 0; ; hop++) {
    const res = await once(url, opts)
    const location = res.headers.location
    if (res.status >= 300 && res.status < 400 && location && hop < (opts.maxRedirects ?? 5)) {
      const next = new URL(location, url)
      if (next.origin !== url.origin && opts.headers?.authorization) opts = { ...opts, headers: withoutAuth(opts.headers) }
      url = next
      continue
    }
    return res
  }
}

function withoutAuth(headers: Record<string, string>): Record<string, string> {
  const { authorization: _dropped, ...rest } = headers
  return rest
}

function once(url: URL, opts: OutboundRequest): Promise<OutboundResponse> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.reject(new OutboundError(`unsupported scheme ${url.protocol}`))
  const host = hostOf(url)
  // A literal address never reaches the resolver hook: judge it here.
  if (isIP(host) && !opts.policy.allowPrivate && isPrivateAddress(host))
    return Promise.reject(new OutboundError(`${host} is a private address`))
  const max = opts.maxBytes ?? 32 * 1024 * 1024
  const client = url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: { 'user-agent': 'Hearth', ...opts.headers },
        lookup: guardedLookup(opts.policy),
        timeout: opts.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > max) {
            // Rejected here, the connection dropped without an error event of its own.
            reject(new OutboundError(`the answer of ${url.host} is larger than ${max} bytes`))
            res.destroy()
            return
          }
          chunks.push(chunk)
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.href }))
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new OutboundError(`${url.host} did not answer in time`)))
    req.on('error', reject)
    req.end(opts.body)
  })
}
