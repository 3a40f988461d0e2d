import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto'

/**
 * A software WebAuthn authenticator and client, built from the specification (W3C WebAuthn Level 3:
 * §6.1 authenticator data, §6.5.4 the `none` attestation object, §5.8.1 client data; RFC 8152 COSE
 * keys; RFC 8949 CBOR) with node:crypto's ES256: the bytes a browser and a platform authenticator
 * send, made here so the tests hold none of the server's code. `tamper` produces what an attacker
 * would send instead.
 */

/** CBOR (RFC 8949) for what WebAuthn needs: unsigned and negative integers, byte and text strings, maps. */
type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>
function head(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n])
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n])
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff])
  const b = Buffer.alloc(5)
  b[0] = (major << 5) | 26
  b.writeUInt32BE(n, 1)
  return b
}
export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)])
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value])
  return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])])
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url')
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest()

const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const

export interface CreationOptionsJSON {
  challenge: string
  rp: { id?: string; name: string }
  user: { id: string; name: string; displayName: string }
}
export interface RequestOptionsJSON {
  challenge: string
  rpId?: string
}

/** What a test may change in a ceremony, each as an attacker or a broken client would. */
export interface Tamper {
  origin?: string
  /** Signs over another RP ID's hash (a credential asserted for another site). */
  rpId?: string
  challenge?: string
  type?: string
  /** Flips a bit of the signature after signing. */
  signature?: boolean
  /** Claims the user was verified, or not. */
  userVerified?: boolean
  /** Sends this counter instead of the next one. */
  counter?: number
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(16)
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  userHandle: string | null = null
  counter = 0

  constructor() {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    this.privateKey = pair.privateKey
    this.publicKey = pair.publicKey
  }

  get id(): string {
    return b64u(this.credentialId)
  }

  /** The credential public key as COSE_Key (EC2, ES256, P-256). */
  coseKey(): Buffer {
    const jwk = this.publicKey.export({ format: 'jwk' })
    return cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x as string, 'base64url')],
        [-3, Buffer.from(jwk.y as string, 'base64url')],
      ]),
    )
  }

  private clientData(type: string, challenge: string, origin: string, t: Tamper) {
    return Buffer.from(
      JSON.stringify({ type: t.type ?? type, challenge: t.challenge ?? challenge, origin: t.origin ?? origin, crossOrigin: false }),
    )
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4)
    count.writeUInt32BE(counter)
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])])
  }

  /** navigator.credentials.create() answered, as RegistrationResponseJSON. */
  create(options: CreationOptionsJSON, origin: string, t: Tamper = {}) {
    this.userHandle = options.user.id
    const rpId = t.rpId ?? options.rp.id ?? new URL(origin).hostname
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(this.credentialId.length)
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey()])
    const uv = t.userVerified ?? true
    const authData = this.authData(rpId, FLAG.UP | (uv ? FLAG.UV : 0) | FLAG.AT, this.counter, attested)
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    )
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(this.clientData('webauthn.create', options.challenge, origin, t)),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    }
  }

  /** navigator.credentials.get() answered, as AuthenticationResponseJSON; the counter moves on first. */
  get(options: RequestOptionsJSON, origin: string, t: Tamper = {}) {
    const rpId = t.rpId ?? options.rpId ?? new URL(origin).hostname
    const counter = t.counter ?? ++this.counter
    const uv = t.userVerified ?? true
    const authData = this.authData(rpId, FLAG.UP | (uv ? FLAG.UV : 0), counter)
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, origin, t)
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey)
    if (t.signature) signature[signature.length - 1] = (signature[signature.length - 1] as number) ^ 0x01
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    }
  }
}
