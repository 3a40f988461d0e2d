import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { HttpError } from '../../core/plugin-api.js'

/**
 * Outbound HTTP requests to URLs users give (sync connectors, digest webhooks).
 *
 * The rule (docs/api.md "Sync connectors and digest"): a target that is, or
 * resolves to, a loopback, private, link-local, CGNAT, unique-local, multicast
 * or unspecified address is refused unless the caller may reach the local
 * network (an admin, or the instance setting that allows it). The check runs
 * where the socket is opened (the resolver hook of node:http), for every
 * request and every redirect hop, so a name that resolves differently later
 * (DNS rebinding) is refused too.
 */
const blocked = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, bits, 'ipv4')
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, bits, 'ipv6')

/** True for an address a non-admin's URL may not reach (IPv4-mapped IPv6 judged as its IPv4). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return blocked.check(mapped[1], 'ipv4')
  const family = isIP(address)
  if (family === 4) return blocked.check(address, 'ipv4')
  if (family === 6) return blocked.check(address, 'ipv6')
  return true
}

export class OutboundError extends Error {
  override name = 'OutboundError'
}

export interface TargetPolicy {
  /** May reach loopback and private networks (an admin, or the instance allows it). */
  allowPrivate: boolean
}

const refusal = (field: string, host: string) =>
  new HttpError(
    'UNPROCESSABLE',
    `${host} is a loopback, private or link-local address: only an admin may use it (or the instance setting HEARTH_OUTBOUND_ALLOW_PRIVATE)`,
    { field, constraint: 'private_address' },
  )

/** Checks a user's URL before it is stored: http(s), no credentials in it, and a public address unless allowed. */
export async function checkTargetUrl(raw: string, field: string, policy: TargetPolicy): Promise<URL> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new HttpError('VALIDATION_ERROR', `${field} must be an absolute http(s) URL`, { field, constraint: 'format' })
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new HttpError('VALIDATION_ERROR', `${field} must be an http or https URL`, { field, constraint: 'format' })
  if (url.username || url.password)
    throw new HttpError('VALIDATION_ERROR', `${field} must not carry credentials (use username and password)`, {
      field,
      constraint: 'format',
    })
  if (policy.allowPrivate) return url
  const host = url.hostname.replace(/^\[|\]$/g, '')
  const addresses = isIP(host) ? [host] : await resolveAll(host).catch(() => [] as string[])
  if (addresses.length === 0) throw new HttpError('UNPROCESSABLE', `${url.hostname} does not resolve`, { field, constraint: 'resolvable' })
  if (addresses.some(isPrivateAddress)) throw refusal(field, url.hostname)
  return url
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, list: LookupAddress[]) => (err ? reject(err) : resolve(list.map((a) => a.address)))),
  )
}

/** A resolver for node:http that refuses private answers when the policy says so. */
function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, list: LookupAddress[]) => {
      if (err) return callback(err, '', 4)
      const bad = !policy.allowPrivate && list.some((a) => isPrivateAddress(a.address))
      if (bad) return callback(new OutboundError(`${hostname} resolves to a private address`), '', 4)
      if (options.all) return (callback as unknown as (e: null, l: LookupAddress[]) => void)(null, list)
      callback(null, list[0].address, list[0].family)
    })
  }
}

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

/** One HTTP request to a user's URL, through the guard; never throws on a status, only on transport or policy failures. */
export async function outbound(target: string | URL, opts: OutboundRequest): Promise<OutboundResponse> {
  let url = new URL(target)
  for (let hop = 0; ; hop++) {
    const res = await once(url, opts)
    const location = res.headers.location
    if (res.status >= 300 && res.status < 400 && location && hop < (opts.maxRedirects ?? 5)) {
      const next = new URL(location, url)
      // Credentials go only to the origin they were given for.
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
  const host = url.hostname.replace(/^\[|\]$/g, '')
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
