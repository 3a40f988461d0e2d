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

/**
 * One email through the instance's SMTP server: plain text, and (`calendar`) an iCalendar
 * alternative with its method (RFC 6047: text/calendar; method=REQUEST as a part of its own).
 */
export interface Mail {
  to: string
  subject: string
  text: string
  calendar?: { method: string; content: string }
  /**
   * Where a reply by mail goes (a member's address, their name as header text): the From stays the
   * instance's HEARTH_SMTP_FROM, the one address its SMTP server vouches for.
   */
  replyTo?: { address: string; name: string | null }
}

export async function sendMail(smtp: SmtpSettings, mail: Mail): Promise<void> {
  const [failure] = await sendMails(smtp, [mail])
  if (failure) throw failure
}

/**
 * Several emails over one SMTP connection (an invitation to many addresses): each one's failure
 * or null, in order. Throws only when no server is configured.
 */
export async function sendMails(smtp: SmtpSettings, mails: Mail[]): Promise<Array<DeliveryError | null>> {
  if (!smtp.url && !smtp.host) throw new DeliveryError('no SMTP server is configured (HEARTH_SMTP_URL or HEARTH_SMTP_HOST)')
  // Imported on the first email, not at start: nodemailer is 400 KB of code most days never run.
  const { default: nodemailer } = await import('nodemailer')
  const pool = { pool: true, maxConnections: 1 }
  const transport = nodemailer.createTransport(smtp.url ? { url: smtp.url, ...pool } : { host: smtp.host, port: smtp.port, ...pool })
  const out: Array<DeliveryError | null> = []
  try {
    for (const { calendar, replyTo, ...mail } of mails) {
      try {
        await transport.sendMail({
          from: smtp.from,
          ...mail,
          // nodemailer encodes an address object's name (quotes, RFC 2047): no header is written from a member's words here.
          ...(replyTo ? { replyTo: { address: replyTo.address, name: replyTo.name ?? '' } } : {}),
          ...(calendar ? { icalEvent: { method: calendar.method, content: calendar.content } } : {}),
        })
        out.push(null)
      } catch (err) {
        // nodemailer's messages name the server and the SMTP reply, never the URL's password.
        out.push(new DeliveryError(`SMTP: ${(err as Error).message}`))
      }
    }
  } finally {
    transport.close()
  }
  return out
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
