import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { embeddedIPv4, ipv6Bytes } from './ip-address.js'

/**
 * The one outbound-address policy: which addresses a URL given by someone who may not reach the
 * home's network is allowed to make the daemon call.
 *
 * Refused: loopback, private (RFC 1918), CGNAT, link-local (cloud metadata), unique-local and
 * site-local IPv6, multicast, broadcast, unspecified and reserved ranges, documentation and
 * benchmarking ranges; and every IPv6 form that carries an IPv4 address inside it, judged by that
 * IPv4 address: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d, deprecated, refused
 * outright), NAT64 (64:ff9b::/96; the local-use 64:ff9b:1::/48 outright) and 6to4 (2002::/16).
 * Teredo (2001::/32) hides its IPv4 address and is refused outright.
 *
 * A name is judged by every address it resolves to (one private answer refuses it), and again where
 * each socket opens (`guardedLookup`, the resolver hook of node:http), so a name re-pointed after it
 * was checked (DNS rebinding) is refused too.
 */
const v4 = new BlockList()
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  v4.addSubnet(net, bits, 'ipv4')

const v6 = new BlockList()
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback, IPv4-compatible
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  v6.addSubnet(net, bits, 'ipv6')

/** True for an address a URL from someone without local-network rights may not reach; anything that is not an address is refused too. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''))
  if (family === 4) return v4.check(address, 'ipv4')
  if (family !== 6) return true
  const bytes = ipv6Bytes(address)
  if (!bytes) return true
  const inner = embeddedIPv4(bytes)
  if (inner) return v4.check(inner, 'ipv4')
  return v6.check(address.replace(/%.*$/, ''), 'ipv6')
}

export interface TargetPolicy {
  /** May reach loopback and private networks (an admin, or the instance allows it). */
  allowPrivate: boolean
}

/** Why a URL is refused: not an http(s) URL without credentials, a private address, or a name that does not resolve. */
export type TargetProblem = 'format' | 'private_address' | 'resolvable'

/**
 * Judges a URL before it is stored: absolute http(s), no credentials inside it, and (unless the policy
 * allows private networks) every address it is or resolves to public. Answers the URL or the problem.
 */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<{ url: URL } | { problem: TargetProblem }> {
  const url = parseTargetUrl(raw)
  if (!url) return { problem: 'format' }
  if (policy.allowPrivate) return { url }
  const host = hostOf(url)
  const addresses = isIP(host) ? [host] : await resolveAll(host).catch(() => [] as string[])
  if (addresses.length === 0) return { problem: 'resolvable' }
  return addresses.some(isPrivateAddress) ? { problem: 'private_address' } : { url }
}

/** An absolute http(s) URL without credentials inside it, or null. */
export function parseTargetUrl(raw: string): URL | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return null
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return null
  return url
}

/** A URL's host without the brackets of an IPv6 literal. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '')

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, list: LookupAddress[]) => (err ? reject(err) : resolve(list.map((a) => a.address)))),
  )
}

export class OutboundError extends Error {
  override name = 'OutboundError'
}

/** A resolver for node:http's `lookup` option that refuses a name with any private answer when the policy says so. */
export function guardedLookup(policy: TargetPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, list: LookupAddress[]) => {
      if (err) return callback(err, '', 4)
      const bad = !policy.allowPrivate && list.some((a) => isPrivateAddress(a.address))
      if (bad) return callback(new OutboundError(`${hostname} resolves to a private address`), '', 4)
      if (options.all) return (callback as unknown as (e: null, l: LookupAddress[]) => void)(null, list)
      const first = list[0] as LookupAddress
      callback(null, first.address, first.family)
    })
  }
}
