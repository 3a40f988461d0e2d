import { type DnsProviderDriver, providers } from '../../../drivers/dns-providers/index.js'
import { HttpError } from '../../../core/plugin-api.js'
import type { AccountRow } from '../store/accounts.js'
import type { DnsContext } from './context.js'

/**
 * Opens a provider driver for a stored account (credentials decrypted only
 * here, in memory) and turns provider failures into API errors:
 * refused input → 422 UNPROCESSABLE, unknown record → 404, anything else the
 * provider did (refused credentials, unreachable, malformed reply) → 502 PROVIDER_ERROR.
 */
export { PROVIDER_ERROR, toHttpError, viaProvider } from '../../../drivers/dns-providers/api-errors.js'

export function baseUrlOf(ctx: DnsContext, provider: string): string {
  const urls: Record<string, string> = {
    cloudflare: ctx.config.cloudflareUrl,
    porkbun: ctx.config.porkbunUrl,
    namecheap: ctx.config.namecheapUrl,
    digitalocean: ctx.config.digitaloceanUrl,
  }
  return urls[provider] ?? ''
}

export function driverFor(ctx: DnsContext, account: AccountRow): DnsProviderDriver {
  const module = providers.get(account.provider)
  if (!module) throw new HttpError('UNPROCESSABLE', `provider ${account.provider} is not supported`)
  const credentials = JSON.parse(ctx.api.secrets.decrypt(account.credentials)) as Record<string, string>
  return module.create({ baseUrl: baseUrlOf(ctx, account.provider), credentials, timeoutMs: ctx.config.outboundTimeoutMs })
}

/** The tail of each zone's queue of provider writes. */
const queues = new Map<string, Promise<unknown>>()

/** Runs `write` after every earlier write queued under `key` has settled. */
function queued<T>(key: string, write: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(write, write)
  const tail = run.catch(() => undefined)
  queues.set(key, tail)
  void tail.then(() => {
    if (queues.get(key) === tail) queues.delete(key)
  })
  return run
}

/**
 * The driver with its record writes to one zone run one at a time. Namecheap's setHosts replaces the
 * whole host set, so two writes that both read it first (two users' edits, DDNS racing an edit) would
 * each drop the other's record; the other providers do not need it and lose nothing by it.
 */
export function serialisedWrites(driver: DnsProviderDriver, key: string): DnsProviderDriver {
  return {
    ...driver,
    createRecord: (zone, record) => queued(key, () => driver.createRecord(zone, record)),
    updateRecord: (zone, id, record) => queued(key, () => driver.updateRecord(zone, id, record)),
    deleteRecord: (zone, id) => queued(key, () => driver.deleteRecord(zone, id)),
  }
}
