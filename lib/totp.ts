import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP) as authenticator apps compute them:
 * HMAC-SHA-1, 6 digits, 30-second steps. Secrets travel as RFC 4648 base32, the form those apps read.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
export const TOTP_PERIOD_S = 30
export const TOTP_DIGITS = 6

export function base32Encode(bytes: Buffer): string {
  let out = ''
  let bits = 0
  let value = 0
  for (const byte of bytes) {
    value = (value << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31]
      bits -= 5
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31]
  return out
}

/** Decodes base32 (case, spaces and padding ignored); null when a character is outside the alphabet. */
export function base32Decode(text: string): Buffer | null {
  const clean = text.replace(/[\s=]/g, '').toUpperCase()
  const out: number[] = []
  let bits = 0
  let value = 0
  for (const ch of clean) {
    const index = ALPHABET.indexOf(ch)
    if (index < 0) return null
    value = ((value << 5) | index) & 0xffff
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** A new secret: 20 random bytes (RFC 4226's recommended length for SHA-1), base32. */
export const newTotpSecret = (): string => base32Encode(randomBytes(20))

/** The HOTP value of `counter` (RFC 4226 section 5.3, dynamic truncation). */
export function hotp(key: Buffer, counter: number, digits = TOTP_DIGITS): string {
  const message = Buffer.alloc(8)
  message.writeBigUInt64BE(BigInt(counter))
  const mac = createHmac('sha1', key).update(message).digest()
  const offset = (mac[mac.length - 1] as number) & 0x0f
  const binary = mac.readUInt32BE(offset) & 0x7fffffff
  return String(binary % 10 ** digits).padStart(digits, '0')
}

/** The time step a moment (milliseconds since the epoch) falls in. */
export const totpStep = (nowMs: number): number => Math.floor(nowMs / 1000 / TOTP_PERIOD_S)

/**
 * The step within `drift` steps of now, and later than `after` (the last step already accepted: a
 * code is good once), whose code `code` is; null when none. Every candidate is computed and compared
 * in constant time, so the answer's timing does not tell which step matched.
 */
export function matchTotp(key: Buffer, code: string, nowMs: number, opts: { drift?: number; after?: number } = {}): number | null {
  if (!/^\d{6}$/.test(code)) return null
  const drift = opts.drift ?? 1
  const after = opts.after ?? -1
  const given = Buffer.from(code)
  const now = totpStep(nowMs)
  let matched: number | null = null
  for (let step = now - drift; step <= now + drift; step++) {
    const equal = timingSafeEqual(Buffer.from(hotp(key, step)), given)
    if (equal && step > after && matched === null) matched = step
  }
  return matched
}

/** The otpauth:// URI authenticator apps read from a QR code (the Key Uri Format of Google Authenticator). */
export function otpauthUrl(opts: { secret: string; issuer: string; account: string }): string {
  const label = `${encodeURIComponent(opts.issuer)}:${encodeURIComponent(opts.account)}`
  const query = new URLSearchParams({
    secret: opts.secret,
    issuer: opts.issuer,
    algorithm: 'SHA1',
    digits: String(TOTP_DIGITS),
    period: String(TOTP_PERIOD_S),
  })
  return `otpauth://totp/${label}?${query}`
}
