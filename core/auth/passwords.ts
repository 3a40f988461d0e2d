import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto'

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))))

// Parameters are stored with each hash so they can be raised later without breaking old hashes.
const N = 32768
const r = 8
const p = 1
const KEYLEN = 32
const maxmem = 128 * N * r * 2

export const MIN_PASSWORD_LENGTH = 8

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scrypt(password, salt, KEYLEN, { N, r, p, maxmem })
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, rr, pp, salt, hash] = stored.split('$')
  if (alg !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64url')
  const cost = { N: Number(n), r: Number(rr), p: Number(pp) }
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { ...cost, maxmem: 128 * cost.N * cost.r * 2 })
  return timingSafeEqual(key, expected)
}

/** A hash to verify against when the account does not exist, so timing does not reveal it. */
export const DUMMY_HASH = `scrypt$${N}$${r}$${p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEYLEN).toString('base64url')}`
