import { createHmac } from 'node:crypto'
import type { TargetPolicy } from '../../lib/outbound-address.js'
import { outbound } from '../../lib/outbound-request.js'
import type { Digest } from './compose.js'

/**
 * Sending a digest: by email through the instance's SMTP server (nodemailer),
 * or by webhook, a JSON POST signed with the user's secret:
 *
 *   X-Hearth-Event: digest
 *   X-Hearth-Timestamp: <unix seconds>
 *   X-Hearth-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>
 *
 * The receiver recomputes the HMAC over the timestamp, a dot and the raw body,
 * compares in constant time, and refuses old timestamps (replays).
 */
export interface SmtpSettings {
  url: string
  host: string
  port: number
  from: string
}

export class DeliveryError extends Error {}

export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
}

export function sendEmail(smtp: SmtpSettings, to: string, digest: Digest, markdown: string): Promise<void> {
  return sendMail(smtp, { to, subject: `Your ${digest.period === 'day' ? 'daily' : 'weekly'} Hearth digest`, text: markdown })
}

/** One plain-text email through the instance's SMTP server. */
export async function sendMail(smtp: SmtpSettings, mail: { to: string; subject: string; text: string }): Promise<void> {
  if (!smtp.url && !smtp.host) throw new DeliveryError('no SMTP server is configured (HEARTH_SMTP_URL or HEARTH_SMTP_HOST)')
  // Imported on the first email, not at start: nodemailer is 400 KB of code most days never run.
  const { default: nodemailer } = await import('nodemailer')
  const transport = smtp.url ? nodemailer.createTransport(smtp.url) : nodemailer.createTransport({ host: smtp.host, port: smtp.port })
  try {
    await transport.sendMail({ from: smtp.from, ...mail })
  } catch (err) {
    // nodemailer's messages name the server and the SMTP reply, never the URL's password.
    throw new DeliveryError(`SMTP: ${(err as Error).message}`)
  } finally {
    transport.close()
  }
}

/** POSTs `body` (JSON, already within its budget: webhook-body.ts) signed with `secret`. */
export async function sendWebhook(target: string, secret: string, body: string, policy: TargetPolicy, now: number): Promise<void> {
  const timestamp = String(Math.floor(now / 1000))
  let res
  try {
    res = await outbound(target, {
      method: 'POST',
      policy,
      body,
      maxRedirects: 0,
      maxBytes: 64 * 1024,
      timeoutMs: 15_000,
      headers: {
        'content-type': 'application/json',
        'x-hearth-event': 'digest',
        'x-hearth-timestamp': timestamp,
        'x-hearth-signature': signature(secret, timestamp, body),
      },
    })
  } catch (err) {
    throw new DeliveryError(`webhook: ${(err as Error).message}`)
  }
  if (res.status < 200 || res.status >= 300) throw new DeliveryError(`webhook: the receiver answered ${res.status}`)
}
