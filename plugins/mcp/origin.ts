import { networkInterfaces } from 'node:os'

/**
 * The MCP transport's defence against DNS rebinding: a browser page whose
 * name an attacker re-pointed at the appliance sends its own Origin (the
 * attacker's name), so a present Origin must be one we trust: loopback
 * (localhost, 127.0.0.0/8, ::1), an address of this machine (a page the
 * daemon serves by IP), or one listed in HEARTH_MCP_ALLOWED_ORIGINS. The
 * Host header is no help: a rebound name arrives in it. Requests without
 * Origin (every non-browser MCP client) pass to authentication as usual.
 */
export function parseAllowList(setting: string): Set<string> {
  const origins = new Set<string>()
  for (const entry of setting
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const origin = originOf(entry)
    if (!origin) throw new Error(`HEARTH_MCP_ALLOWED_ORIGINS: ${entry} is not an origin (scheme://host[:port])`)
    origins.add(origin)
  }
  return origins
}

function originOf(value: string): string | null {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null
  } catch {
    return null
  }
}

const isLoopback = (host: string) =>
  host === 'localhost' || host.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '[::1]'

function isOwnAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return Object.values(networkInterfaces()).some((list) => list?.some((a) => a.address.toLowerCase() === bare))
}

export function originAllowed(header: string, allowList: ReadonlySet<string>): boolean {
  const origin = originOf(header)
  if (!origin) return false // "null" (sandboxed frames, file:), or not a web origin
  if (allowList.has(origin)) return true
  const host = new URL(origin).hostname
  return isLoopback(host) || isOwnAddress(host)
}
