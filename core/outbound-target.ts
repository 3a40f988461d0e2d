import { checkTarget, type TargetPolicy } from '../lib/outbound-address.js'
import { HttpError } from './errors.js'

/**
 * A URL a request gives for the daemon to call later (a connector's server, a webhook, an AI base
 * URL), judged by the outbound-address policy (lib/outbound-address.ts) and refused in the API's
 * words: 400 VALIDATION_ERROR `format` for anything but an http(s) URL without credentials, 422
 * UNPROCESSABLE `private_address` or `resolvable` for where it leads.
 */
export async function checkTargetUrl(raw: string, field: string, policy: TargetPolicy): Promise<URL> {
  const verdict = await checkTarget(raw, policy)
  if ('url' in verdict) return verdict.url
  const details = { field, constraint: verdict.problem }
  if (verdict.problem === 'format')
    throw new HttpError('VALIDATION_ERROR', `${field} must be an absolute http(s) URL without credentials in it`, details)
  if (verdict.problem === 'resolvable') throw new HttpError('UNPROCESSABLE', `${field}: the host does not resolve`, details)
  throw new HttpError(
    'UNPROCESSABLE',
    `${field} is, or resolves to, a loopback, private or link-local address: only an admin may use it (or the instance setting HEARTH_OUTBOUND_ALLOW_PRIVATE)`,
    details,
  )
}
