import { X509Certificate } from 'node:crypto'
import type { HearthApi } from '../../core/plugin-api.js'
import type { ProxyDriver } from '../../drivers/proxy/driver.js'
import type { ProxyService } from './service.js'

/** Whether a route's domain (a name, or `*.` and a name) covers `host`. */
const covers = (domain: string, host: string) =>
  domain === host || (domain.startsWith('*.') && host.endsWith(domain.slice(1)) && !host.slice(0, -domain.length + 1).includes('.'))

/**
 * The local CA's root (DER) that a device must trust to reach `host` over HTTPS: only when an enabled
 * HTTPS route serves that name and the certificate the proxy serves for it chains to the proxy's own
 * CA (a LAN name). Null otherwise, and when the proxy cannot be asked (the device then gets its
 * accounts without the root, as before). `host` comes from a request: it only selects among the
 * admin's routes and is never dialled itself (the handshake goes to the proxy on loopback).
 */
export function deviceRoot(api: HearthApi, proxy: ProxyService) {
  return async (host: string): Promise<Buffer | null> => {
    const name = host.toLowerCase()
    const route = proxy.list().find((r) => r.ssl && r.enabled && covers(r.domain.toLowerCase(), name))
    if (!route) return null
    try {
      const pem = await api.hal.with<ProxyDriver, string | null>('proxy', (d) => d.localRootServing(name))
      return pem ? Buffer.from(new X509Certificate(pem).raw) : null
    } catch (err) {
      api.log.warn({ err: (err as Error).message, host: name }, 'the local CA could not be read for a device profile: sent without it')
      return null
    }
  }
}
