import * as crypto from 'node:crypto'
import { createHash, randomBytes } from 'node:crypto'

// Every authenticated request hashes its token: the one-shot crypto.hash (Node >= 20.12) is ~3x
// cheaper than a Hash object; the same digest either way, so older Node 20 releases fall back.
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : null

export const sha256 = (value: string): string =>
  oneShot ? oneShot('sha256', value, 'hex') : createHash('sha256').update(value).digest('hex')

/** A random opaque token with a readable prefix, e.g. `rt_…`. */
export const randomToken = (prefix: string, bytes = 32): string => `${prefix}${randomBytes(bytes).toString('base64url')}`
