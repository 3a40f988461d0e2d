import type { DnsServer, DnsServerOptions } from './types.js'

// Placeholder until the implementation lands (interface published first).
export function createDnsServer(opts: DnsServerOptions): DnsServer {
  throw new Error(`DNS server not implemented yet (${opts.host}:${opts.port})`)
}
