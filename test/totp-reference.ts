import { createHmac } from 'node:crypto'

/**
 * An authenticator app for tests, written apart from lib/totp.ts on purpose: RFC 6238 (HMAC-SHA-1,
 * 6 digits, 30 s) straight from the RFC's reference algorithm, so the daemon's codes are checked
 * against a second implementation and not against themselves.
 */
function fromBase32(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  const bits = [...text.toUpperCase().replace(/=+$/, '')].map((c) => alphabet.indexOf(c).toString(2).padStart(5, '0')).join('')
  const bytes: number[] = []
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2))
  return Buffer.from(bytes)
}

/** The code an authenticator app shows at `atMs` for `secret` (base32). */
export function appCode(secret: string, atMs: number): string {
  const counter = Math.floor(atMs / 30_000)
  const msg = Buffer.alloc(8)
  msg.writeUInt32BE(Math.floor(counter / 2 ** 32), 0)
  msg.writeUInt32BE(counter % 2 ** 32, 4)
  const h = createHmac('sha1', fromBase32(secret)).update(msg).digest()
  const o = (h[19] as number) & 0xf
  const n = (((h[o] as number) & 0x7f) << 24) | ((h[o + 1] as number) << 16) | ((h[o + 2] as number) << 8) | (h[o + 3] as number)
  return String(n % 1_000_000).padStart(6, '0')
}
