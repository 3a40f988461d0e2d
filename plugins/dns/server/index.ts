/**
 * Built-in authoritative DNS server: the module's only entry point.
 * Contract and content formats: see ./types.ts.
 */
export type {
  DnsLogger,
  DnsServer,
  DnsServerOptions,
  DnsServerStatus,
  DnsStartResult,
  ZoneData,
  ZoneRecord,
  ZoneRecordType,
} from './types.js'
export { createDnsServer } from './server.js'
