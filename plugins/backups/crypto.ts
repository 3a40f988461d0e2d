import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto'
import { Transform, type TransformCallback } from 'node:stream'

/**
 * Passphrase encryption of a backup archive, chunked so it streams:
 *
 *   header  "HEARTHBK" | version 1 | salt (16) | log2 N | r | p | nonce prefix (8)      = 36 bytes
 *   chunk   length (4, big-endian; top bit set on the last chunk) | ciphertext | GCM tag (16)
 *
 * The key is scrypt(passphrase, salt); each chunk is AES-256-GCM with the nonce
 * prefix + a 4-byte counter, and authenticates the header and its own "last" flag, so
 * chunks cannot be reordered, dropped, or the stream cut after a whole chunk.
 */
export const MAGIC = Buffer.from('HEARTHBK')
const VERSION = 1
const HEADER = 36
const CHUNK = 64 * 1024
const TAG = 16
const LAST = 0x8000_0000
const SCRYPT = { log2N: 15, r: 8, p: 1 }

export class WrongPassphraseError extends Error {
  constructor() {
    super('wrong passphrase, or the archive is damaged')
    this.name = 'WrongPassphraseError'
  }
}

function deriveKey(passphrase: string, salt: Buffer, log2N: number, r: number, p: number): Promise<Buffer> {
  if (log2N < 10 || log2N > 20 || r < 1 || r > 32 || p < 1 || p > 16)
    return Promise.reject(new Error('damaged archive: bad key parameters'))
  const N = 2 ** log2N
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize('NFC'), salt, 32, { N, r, p, maxmem: 256 * N * r + 16 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  )
}

const nonce = (prefix: Buffer, counter: number) => {
  const n = Buffer.alloc(12)
  prefix.copy(n, 0)
  n.writeUInt32BE(counter, 8)
  return n
}

const aad = (header: Buffer, last: boolean) => Buffer.concat([header, Buffer.from([last ? 1 : 0])])

export function createEncryptStream(passphrase: string): Transform {
  const salt = randomBytes(16)
  const prefix = randomBytes(8)
  const header = Buffer.concat([MAGIC, Buffer.from([VERSION]), salt, Buffer.from([SCRYPT.log2N, SCRYPT.r, SCRYPT.p]), prefix])
  const keyPromise = deriveKey(passphrase, salt, SCRYPT.log2N, SCRYPT.r, SCRYPT.p)
  let key: Buffer | null = null
  let counter = 0
  let buffered: Buffer[] = []
  let size = 0

  const seal = (stream: Transform, plain: Buffer, last: boolean) => {
    const cipher = createCipheriv('aes-256-gcm', key as Buffer, nonce(prefix, counter++))
    cipher.setAAD(aad(header, last))
    const body = Buffer.concat([cipher.update(plain), cipher.final()])
    const len = Buffer.alloc(4)
    len.writeUInt32BE((plain.length | (last ? LAST : 0)) >>> 0)
    stream.push(Buffer.concat([len, body, cipher.getAuthTag()]))
  }

  return new Transform({
    async transform(chunk: Buffer, _enc, done: TransformCallback) {
      try {
        if (!key) {
          key = await keyPromise
          this.push(header)
        }
        buffered.push(chunk)
        size += chunk.length
        if (size >= CHUNK) {
          let all = Buffer.concat(buffered)
          while (all.length >= CHUNK) {
            seal(this, all.subarray(0, CHUNK), false)
            all = all.subarray(CHUNK)
          }
          buffered = [all]
          size = all.length
        }
        done()
      } catch (err) {
        done(err as Error)
      }
    },
    async flush(done: TransformCallback) {
      try {
        if (!key) {
          key = await keyPromise
          this.push(header)
        }
        seal(this, Buffer.concat(buffered), true)
        done()
      } catch (err) {
        done(err as Error)
      }
    },
  })
}

export function createDecryptStream(passphrase: string): Transform {
  let pending: Buffer = Buffer.alloc(0)
  let header: Buffer | null = null
  let key: Buffer | null = null
  let prefix: Buffer | null = null
  let counter = 0
  let finished = false

  const open = async () => {
    const h = pending.subarray(0, HEADER)
    if (!h.subarray(0, 8).equals(MAGIC)) throw new Error('not an encrypted Hearth backup')
    if (h[8] !== VERSION) throw new Error(`encrypted with format version ${h[8]}, which this Hearth does not know`)
    key = await deriveKey(passphrase, h.subarray(9, 25), h[25] as number, h[26] as number, h[27] as number)
    prefix = Buffer.from(h.subarray(28, 36))
    header = Buffer.from(h)
    pending = pending.subarray(HEADER)
  }

  const drain = (stream: Transform) => {
    while (pending.length >= 4) {
      if (finished) throw new Error('damaged archive: data after the last chunk')
      const word = pending.readUInt32BE(0)
      const last = (word & LAST) !== 0
      const len = word & ~LAST
      if (len > CHUNK) throw new Error('damaged archive: chunk too large')
      if (pending.length < 4 + len + TAG) return
      const decipher = createDecipheriv('aes-256-gcm', key as Buffer, nonce(prefix as Buffer, counter++))
      decipher.setAAD(aad(header as Buffer, last))
      decipher.setAuthTag(pending.subarray(4 + len, 4 + len + TAG))
      try {
        stream.push(Buffer.concat([decipher.update(pending.subarray(4, 4 + len)), decipher.final()]))
      } catch {
        throw new WrongPassphraseError()
      }
      pending = pending.subarray(4 + len + TAG)
      finished = last
    }
  }

  return new Transform({
    async transform(chunk: Buffer, _enc, done: TransformCallback) {
      try {
        pending = pending.length ? Buffer.concat([pending, chunk]) : chunk
        if (!key) {
          if (pending.length < HEADER) return done()
          await open()
        }
        drain(this)
        done()
      } catch (err) {
        done(err as Error)
      }
    },
    flush(done: TransformCallback) {
      if (!finished) return done(new Error('damaged archive: the encrypted stream ends early (truncated file?)'))
      done()
    },
  })
}
