import { HttpError } from '../../core/plugin-api.js'

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/

const invalid = (field: string, constraint: string, message: string) => new HttpError('VALIDATION_ERROR', message, { field, constraint })

/** A host name, lower-cased, trailing dot dropped; `*.` allowed as the first label. */
export function normalizeDomain(raw: string): string {
  const domain = raw.trim().toLowerCase().replace(/\.$/, '')
  const labels = domain.split('.')
  const ok = domain.length <= 253 && labels.every((l, i) => LABEL.test(l) || (i === 0 && l === '*' && labels.length > 2))
  if (!ok) throw invalid('domain', 'hostname', `domain "${raw}" is not a host name`)
  return domain
}

/** An http(s) origin: scheme, host, optional port; no path, query, fragment or credentials. */
export function normalizeTarget(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    throw invalid('target', 'http_url', 'target must be an http:// or https:// URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid('target', 'http_url', 'target must be an http:// or https:// URL')
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== ''))
    throw invalid('target', 'origin', 'target is an origin (scheme, host and port): no path, query or credentials')
  return url.origin
}
