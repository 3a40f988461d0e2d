import cloudflare from './cloudflare/index.js'
import digitalocean from './digitalocean/index.js'
import type { DnsProviderModule } from './driver.js'
import namecheap from './namecheap/index.js'
import porkbun from './porkbun/index.js'

/** The supported providers, keyed by the `provider` value of the API. */
export const providers: ReadonlyMap<string, DnsProviderModule> = new Map(
  [cloudflare, porkbun, namecheap, digitalocean].map((m) => [m.name, m]),
)

export * from './driver.js'
