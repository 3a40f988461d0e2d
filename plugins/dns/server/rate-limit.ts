import { addressPrefix } from '../../../lib/ip-prefix.js'

const RRL_BITS = { v4: 24, v6: 56 }

/**
 * Response rate limiting per source prefix (/24 for IPv4, /56 for IPv6), the defence of an
 * authoritative server against being used to amplify traffic at a spoofed victim. A token bucket
 * per prefix, refilled at `perSecond`, `perSecond` deep. Of the answers over the rate, every
 * `slip`-th goes out truncated (TC, no records: a real client retries over TCP, which cannot be
 * spoofed) and the others are dropped. O(1) per packet; at most `maxPrefixes` buckets, the
 * least recently created evicted first.
 */
export interface RateLimitOptions {
  /** Answers per second per prefix; 0 disables the limit. */
  perSecond: number
  /** Every slip-th limited answer is sent truncated; 0 drops them all. */
  slip?: number
  /** Loopback sources (the machine itself: tests, benches, a local resolver) are never limited. */
  exemptLoopback?: boolean
  maxPrefixes?: number
  now?: () => number
}

export type Verdict = 'send' | 'truncate' | 'drop'

interface Bucket {
  tokens: number
  at: number
  limited: number
}

export class ResponseRateLimiter {
  private readonly buckets = new Map<string, Bucket>()
  private readonly slip: number
  private readonly exemptLoopback: boolean
  private readonly maxPrefixes: number
  private readonly now: () => number
  limited = 0

  constructor(private readonly opts: RateLimitOptions) {
    this.slip = opts.slip ?? 2
    this.exemptLoopback = opts.exemptLoopback ?? true
    this.maxPrefixes = opts.maxPrefixes ?? 16_384
    this.now = opts.now ?? Date.now
  }

  check(address: string): Verdict {
    const rate = this.opts.perSecond
    if (rate <= 0 || (this.exemptLoopback && isLoopback(address))) return 'send'
    const key = prefixOf(address)
    const now = this.now()
    let bucket = this.buckets.get(key)
    if (!bucket) {
      if (this.buckets.size >= this.maxPrefixes) this.buckets.delete(this.buckets.keys().next().value as string)
      bucket = { tokens: rate, at: now, limited: 0 }
      this.buckets.set(key, bucket)
    } else {
      bucket.tokens = Math.min(rate, bucket.tokens + ((now - bucket.at) / 1000) * rate)
      bucket.at = now
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1
      return 'send'
    }
    this.limited++
    bucket.limited++
    return this.slip > 0 && bucket.limited % this.slip === 0 ? 'truncate' : 'drop'
  }
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.')
}

/** The /24 of an IPv4 address, the /56 of an IPv6 one. */
export function prefixOf(address: string): string {
  return addressPrefix(address, RRL_BITS)
}
