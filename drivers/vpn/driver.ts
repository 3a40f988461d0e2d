import type { DriverInstance } from '../../core/plugin-api.js'

/** docs/api.md: the VPN status as the API answers it. */
export interface VpnStatus {
  installed: boolean
  running: boolean
  logged_in: boolean
  hostname: string | null
  ip: string | null
  tailnet: string | null
}

export interface VpnCertificate {
  domain: string
  cert_path: string
  key_path: string
}

/** The `vpn` HAL kind. */
export interface VpnDriver extends DriverInstance {
  status(): Promise<VpnStatus>
  install(): Promise<void>
  /** Starts a login and answers as soon as the CLI shows the URL to open (null: already logged in). */
  login(): Promise<{ auth_url: string | null }>
  logout(): Promise<void>
  generateCert(domain: string | null): Promise<VpnCertificate>
}
