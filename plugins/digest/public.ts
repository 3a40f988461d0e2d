/**
 * What the digest plugin provides to plugins that list `digest` in their dependencies: the
 * instance's mailer (HEARTH_SMTP_URL or HEARTH_SMTP_HOST), for other mail the daemon sends.
 *
 *   const { mailer } = api.services.get<DigestPluginService>('digest')
 */
import type { Mail } from './deliver.js'

export interface Mailer {
  /** Whether an SMTP server is configured at all. */
  readonly configured: boolean
  /** Sends these emails over one connection: each one's failure (the SMTP server's reason, never its password) or null. */
  send(mails: Mail[]): Promise<Array<Error | null>>
}

export interface DigestPluginService {
  mailer: Mailer
}

export type { Mail } from './deliver.js'
