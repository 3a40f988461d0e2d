import type { RateLimitOptions } from './rate-limit.js'
/**
 * Public contract of the built-in authoritative DNS server (plugins/dns/server).
 * The DNS HTTP plugin drives the server only through these types and
 * createDnsServer() from ./index.js.
 *
 * Names: fully-qualified, lower-case, WITHOUT trailing dot ("www.example.com").
 * The apex record of a zone has name === zone name. Names are matched
 * case-insensitively; the server lower-cases whatever it is given anyway.
 * A first label '*' is a wildcard (RFC 4592): "*.dev.example.com" answers
 * for every name below dev.example.com that has no records of its own.
 *
 * `content` format per type (same strings the HTTP API stores):
 *   A      IPv4 text               "192.0.2.10"
 *   AAAA   IPv6 text               "2001:db8::1"
 *   CNAME  host                    "target.example.com"   (trailing dot tolerated)
 *   NS     host                    "ns1.example.com"
 *   MX     host                    "mail.example.com"     priority = preference (0..65535)
 *   SRV    "weight port target"    "5 5060 sip.example.com" priority = SRV priority
 *   CAA    "flags tag value"       '0 issue "letsencrypt.org"' (quotes around value optional)
 *   TXT    any text                split into 255-byte character-strings on the wire
 *   SOA    "mname rname refresh retry expire minimum" (serial NOT in content:
 *          it always comes from ZoneData.serial). rname in dotted form
 *          ("hostmaster.example.com").
 *
 * SOA / NS at the apex: the caller MAY include them. When the zone has no SOA
 * record the server synthesises one: mname = first apex NS (or
 * "ns1.<zone>"), rname = "hostmaster.<zone>", refresh 3600, retry 600,
 * expire 1209600, minimum 300, serial = ZoneData.serial. When the zone has no
 * apex NS the server synthesises NS = mname. The caller must bump `serial`
 * on every change it pushes (putZone); the server does not bump it itself.
 *
 * Records with a content the server cannot encode (e.g. "A" with "x.y") are
 * skipped with a warning in the log, never thrown: the HTTP layer validates.
 */

export type ZoneRecordType = 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT' | 'SRV' | 'CAA' | 'NS' | 'SOA'

export interface ZoneRecord {
  /** fqdn, lower-case, no trailing dot. */
  name: string
  type: ZoneRecordType
  /** seconds, 1..86400 (not re-validated here). */
  ttl: number
  content: string
  /** MX preference or SRV priority; null for every other type. */
  priority: number | null
}

export interface ZoneData {
  /** zone apex, lower-case, no trailing dot. */
  name: string
  /** SOA serial; bump it on every change. */
  serial: number
  records: ZoneRecord[]
}

/** Minimal logger; a fastify/pino logger fits. */
export interface DnsLogger {
  info(msg: string): void
  warn(msg: string): void
  error(msg: string): void
  debug(msg: string): void
}

export interface DnsServerOptions {
  /** bind address, e.g. '0.0.0.0' (HEARTH_DNS_HOST). */
  host: string
  /**
   * UDP and TCP port (HEARTH_DNS_PORT). 0 here means "pick a free port"
   * (used by tests and the bench); the plugin must NOT call start() when the
   * configured port is 0 (that setting disables the server).
   */
  port: number
  log: DnsLogger
  /** A TCP connection that completes no query for this long is closed (default 10 s). */
  tcpIdleMs?: number
  /** TCP connections one source (an IPv4 address, an IPv6 /64) may hold of the 256 (default 32). */
  tcpMaxPerSource?: number
  /** Response rate limiting of UDP answers per source prefix (see rate-limit.ts); default 50/s, loopback exempt. */
  rateLimit?: RateLimitOptions
}

export interface DnsStartResult {
  udp: boolean
  tcp: boolean
  /** port actually bound (differs from the option only when it was 0). */
  port: number
  /** One clear line when either socket failed (EADDRINUSE, EACCES...). Never thrown. */
  error?: string
}

export interface DnsServerStatus {
  /** true when at least one socket is listening. */
  running: boolean
  udp: boolean
  tcp: boolean
  host: string
  port: number
  error: string | null
  zones: number
  /** queries answered since start (any rcode). */
  queries: number
  /** answers since start by RCODE name (NOERROR, NXDOMAIN, REFUSED...). */
  byRcode: Record<string, number>
  /** packets dropped as garbage since start. */
  dropped: number
  /** UDP answers held back (dropped or truncated) by response rate limiting since start. */
  rateLimited: number
  /** TCP connections paused because their client does not read its answers, since start. */
  tcpPaused: number
  /** TCP connections closed at once because their source held its share of connections, since start. */
  tcpRefused: number
}

export interface DnsServer {
  /** Binds UDP and TCP. Never rejects on bind failure: see the result. Idempotent. */
  start(): Promise<DnsStartResult>
  stop(): Promise<void>
  /**
   * Replaces the records of a few owner names of a loaded zone and sets its serial, at the cost of
   * those names (a 10,000-record zone is not parsed again). `records` holds every record of that
   * name as stored. False when the zone is not loaded: call putZone with the whole zone then.
   */
  patchZone(zone: string, serial: number, owners: Array<{ name: string; records: ZoneRecord[] }>): boolean
  /** Replaces the whole set of authoritative zones (e.g. at plugin start). */
  setZones(zones: ZoneData[]): void
  /** Adds or replaces one zone; answers change immediately. */
  putZone(zone: ZoneData): void
  /** Removes one zone (by apex name); its names become REFUSED. */
  removeZone(name: string): void
  readonly status: DnsServerStatus
}
