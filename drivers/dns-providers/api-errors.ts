import { HttpError } from '../../core/plugin-api.js'
import { ProviderError } from './driver.js'
import { providers } from './index.js'

/**
 * What every user of the provider drivers (the DNS plugin's provider accounts, the proxy's DNS-provider
 * integration) needs in API terms: credentials checked per provider, and provider failures mapped to
 * errors: refused input → 422, unknown record → 404, anything else the provider did → 502 PROVIDER_ERROR.
 */
export const PROVIDER_ERROR = 'PROVIDER_ERROR'

const invalid = (field: string, constraint: string, message: string) => new HttpError('VALIDATION_ERROR', message, { field, constraint })

export function checkCredentials(provider: string, credentials: Record<string, string>): void {
  const module = providers.get(provider)
  if (!module) throw invalid('provider', 'enum', `provider must be one of ${[...providers.keys()].join(', ')}`)
  for (const key of module.credentialKeys) {
    if (typeof credentials[key] !== 'string' || credentials[key].trim() === '') {
      throw invalid(`credentials.${key}`, 'required', `${provider} credentials need ${key}`)
    }
  }
  const unknown = Object.keys(credentials).find((k) => !module.credentialKeys.includes(k))
  if (unknown) throw invalid(`credentials.${unknown}`, 'unknown', `${provider} credentials take only ${module.credentialKeys.join(', ')}`)
}

export function toHttpError(err: unknown): unknown {
  if (!(err instanceof ProviderError)) return err
  const details = { provider: err.provider, reason: err.kind, upstream_status: err.upstreamStatus }
  if (err.kind === 'rejected' || err.kind === 'unsupported') return new HttpError('UNPROCESSABLE', err.message, details)
  if (err.kind === 'not_found') return new HttpError('NOT_FOUND', err.message, details)
  return new HttpError(PROVIDER_ERROR, err.message, details)
}

/** Runs a provider call, mapping its failure. */
export async function viaProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (err) {
    throw toHttpError(err)
  }
}
