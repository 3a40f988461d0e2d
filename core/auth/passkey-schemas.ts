import { Type } from '@sinclair/typebox'
import { Nullable, Timestamp, Uuid } from '../schemas.js'

/**
 * The WebAuthn JSON forms (W3C WebAuthn Level 3, the `…JSON` dictionaries; what `PublicKeyCredential`'s
 * toJSON() and @simplewebauthn/browser send and take). Answers list every member, so the JSON writer
 * drops nothing a browser needs; bodies bound each field (a packed attestation with its certificates
 * is a few KiB) and let browsers add members of later versions inside the credential.
 */
const b64url = (maxLength: number) => Type.String({ maxLength, pattern: '^[A-Za-z0-9_-]*={0,2}$' })
const open = { additionalProperties: true, maxProperties: 16 } as const
const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 })
const Descriptor = Type.Object({ id: Type.String(), type: Type.String(), transports: Type.Optional(Type.Array(Type.String())) })
const CredentialId = b64url(1366)

const O = Type.Optional
export const CreationOptions = Type.Object({
  rp: Type.Object({ name: Type.String(), id: O(Type.String()) }),
  user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
  challenge: Type.String(),
  pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String() })),
  timeout: O(Type.Integer()),
  excludeCredentials: O(Type.Array(Descriptor)),
  authenticatorSelection: O(
    Type.Object({
      authenticatorAttachment: O(Type.String()),
      residentKey: O(Type.String()),
      requireResidentKey: O(Type.Boolean()),
      userVerification: O(Type.String()),
    }),
  ),
  hints: O(Type.Array(Type.String())),
  attestation: O(Type.String()),
  extensions: O(Type.Object({ credProps: O(Type.Boolean()) })),
})

export const RequestOptions = Type.Object({
  challenge: Type.String(),
  timeout: O(Type.Integer()),
  rpId: O(Type.String()),
  allowCredentials: O(Type.Array(Descriptor)),
  userVerification: O(Type.String()),
})

const credential = <T extends ReturnType<typeof Type.Object>>(response: T) =>
  Type.Object(
    {
      id: CredentialId,
      rawId: CredentialId,
      type: Type.Literal('public-key'),
      response,
      authenticatorAttachment: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
      clientExtensionResults: Type.Object({}, open),
    },
    open,
  )

export const RegistrationResponse = credential(
  Type.Object(
    {
      clientDataJSON: b64url(8192),
      attestationObject: b64url(65536),
      authenticatorData: Type.Optional(b64url(65536)),
      transports: Type.Optional(Transports),
      publicKeyAlgorithm: Type.Optional(Type.Integer()),
      publicKey: Type.Optional(b64url(8192)),
    },
    open,
  ),
)

export const AuthenticationResponse = credential(
  Type.Object(
    {
      clientDataJSON: b64url(8192),
      authenticatorData: b64url(65536),
      signature: b64url(2048),
      userHandle: Type.Optional(Nullable(b64url(128))),
    },
    open,
  ),
)

export const PasskeyRegisterBody = Type.Object(
  { response: RegistrationResponse, name: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
)
export const PasskeyLoginOptionsBody = Type.Object(
  { email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })) },
  { additionalProperties: false },
)
export const PasskeyLoginBody = Type.Object({ response: AuthenticationResponse }, { additionalProperties: false })

export const Passkey = Type.Object({
  id: Uuid,
  name: Type.String(),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  /** Whether the authenticator syncs it (a password manager's or a phone platform's passkey). */
  backed_up: Type.Boolean(),
})
