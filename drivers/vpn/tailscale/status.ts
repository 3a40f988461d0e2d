import type { VpnStatus } from '../driver.js'

/** The fields of `tailscale status --json` read here (ipn/ipnstate/ipnstate.go, type Status). */
export interface TailscaleStatus {
  BackendState?: string
  AuthURL?: string
  Self?: { HostName?: string; DNSName?: string; TailscaleIPs?: string[] | null } | null
  CurrentTailnet?: { Name?: string } | null
}

/**
 * BackendState (ipn/backend.go): NoState, NeedsLogin, NeedsMachineAuth, Stopped, Starting, Running.
 * Logged in means the node has a key: Stopped (disconnected on purpose), Starting and Running.
 */
export function toVpnStatus(s: TailscaleStatus): VpnStatus {
  const state = s.BackendState ?? 'NoState'
  const loggedIn = state === 'Running' || state === 'Starting' || state === 'Stopped'
  const ips = s.Self?.TailscaleIPs ?? []
  return {
    installed: true,
    running: state === 'Running',
    logged_in: loggedIn,
    hostname: (loggedIn && s.Self?.HostName) || null,
    ip: loggedIn ? (ips.find((a) => !a.includes(':')) ?? ips[0] ?? null) : null,
    tailnet: (loggedIn && s.CurrentTailnet?.Name) || null,
  }
}

/** The first https:// URL in the CLI's output ("To authenticate, visit:\n\n\thttps://login.tailscale.com/a/..."). */
export function authUrl(output: string): string | null {
  const at = output.indexOf('https://')
  if (at < 0) return null
  let end = at
  while (end < output.length && !/\s/.test(output[end] as string)) end++
  return output.slice(at, end)
}
