/** The WebAuthn relying party: the name passkeys are bound to, and the page origins whose ceremonies count. */
export interface RelyingParty {
  /** The RP ID: the host name alone, lower case. */
  id: string
  /**
   * The origins an answer may come from. Never derived from a request's headers (a phishing site
   * relaying a member's answer would name itself there): only from the setting, and on loopback
   * from the port this daemon's own socket accepted the connection on.
   */
  origins(localPort: number | undefined): string[]
}

/**
 * Reads HEARTH_PUBLIC_HOSTNAME (`host` or `host:port`); null when empty (passkeys off). The origin is
 * `https://host[:port]`, exactly: another name, a sub-domain, plain HTTP or another port is refused.
 * For `localhost` (development and browser tests, where browsers allow WebAuthn over plain HTTP), the
 * daemon's own `http://localhost:<port it listens on>` too: a page of another program on this machine
 * listens elsewhere, and no remote site can be `localhost` in the member's browser.
 */
export function relyingParty(setting: string): RelyingParty | null {
  if (!setting) return null
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(setting.toLowerCase())
  const id = match?.[1] ?? ''
  const port = match?.[2]
  const https = port && port !== '443' ? `https://${id}:${port}` : `https://${id}`
  return {
    id,
    origins: (localPort) => (id === 'localhost' && localPort ? [https, `http://localhost:${localPort}`] : [https]),
  }
}
