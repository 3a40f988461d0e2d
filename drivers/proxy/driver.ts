import type { DriverInstance } from '../../core/plugin-api.js'

/** A route as a proxy driver serves it. */
export interface ProxyRoute {
  id: string
  domain: string
  /** http(s)://host[:port] */
  target: string
  ssl: boolean
  /** A certificate Hearth obtained itself (DNS-01); the proxy serves it instead of getting one. */
  certificate?: { pem: string; key: string }
}

export interface ApplyResult {
  /** Routes the proxy refused, with its reason; every other route is served. */
  refused: Array<{ id: string; error: string }>
}

/** The `proxy` HAL kind. */
export interface ProxyDriver extends DriverInstance {
  /** Replaces the proxy's whole configuration with these routes. Throws when the proxy cannot be reached. */
  apply(routes: ProxyRoute[]): Promise<ApplyResult>
  /** Whether the proxy still serves the configuration of the last apply (false after a restart that lost it). */
  inStep(): Promise<boolean>
  /** The PEM certificate the proxy serves for a domain (read from a TLS handshake), or null before issuance. */
  certificate(domain: string): Promise<string | null>
  /** The last issuance failure per domain that has not been followed by a success. */
  issuanceErrors(): Promise<Map<string, string>>
  /** The root of the proxy's own CA (for LAN names), PEM. */
  localCa(): Promise<string>
  /**
   * The root of the proxy's own CA (PEM) when the certificate it serves for `domain` was issued by
   * that CA (verified, signature by signature); null when it serves another one, or none yet.
   */
  localRootServing(domain: string): Promise<string | null>
}
