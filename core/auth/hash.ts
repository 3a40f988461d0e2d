import { createHash, randomBytes } from 'node:crypto'

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex')

/** A random opaque token with a readable prefix, e.g. `rt_…`. */
export const randomToken = (prefix: string, bytes = 32): string => `${prefix}${randomBytes(bytes).toString('base64url')}`
