import { Type } from '@sinclair/typebox'
import { Nullable, Role, StringEnum, Tier, Timestamp, Uuid } from '../schemas.js'
import { MFA_METHODS } from './mfa-challenges.js'
import { MIN_PASSWORD_LENGTH } from './passwords.js'

export const Email = Type.String({ format: 'email', maxLength: 254 })
export const Password = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 })
const strict = { additionalProperties: false } as const

export const User = Type.Object({
  id: Uuid,
  email: Type.String(),
  name: Nullable(Type.String()),
  role: Role,
  tier: Tier,
  disabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
})

export const Session = Type.Object({ accessToken: Type.String(), refreshToken: Type.String(), user: User })

export const SetupBody = Type.Object({ email: Email, password: Password, name: Type.Optional(Type.String({ maxLength: 200 })) }, strict)
export const LoginBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  strict,
)
export const RefreshBody = Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 512 }) }, strict)
export const RegisterBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 512 }), password: Password, name: Type.Optional(Type.String({ maxLength: 200 })) },
  strict,
)
export const ForgotBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }, strict)
export const ResetBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 512 }), new_password: Password }, strict)
export const ChangePasswordBody = Type.Object(
  { current_password: Type.String({ minLength: 1, maxLength: 1024 }), new_password: Password },
  strict,
)

export const AuthStatus = Type.Object({
  mode: StringEnum(['setup', 'single_user', 'multi_user'] as const),
  version: Type.String(),
  /** Whether passkey sign-in is on (HEARTH_PUBLIC_HOSTNAME is set): a sign-in page shows its button only then. */
  passkeys: Type.Boolean(),
})

export const KeyScope = StringEnum(['agent', 'system', 'sync', 'dav'] as const)
export const ApiKey = Type.Object({
  id: Uuid,
  key_prefix: Type.String(),
  scope: KeyScope,
  label: Nullable(Type.String()),
  user_id: Uuid,
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
})
export const CreatedApiKey = Type.Composite([ApiKey, Type.Object({ key: Type.String() })])
export const CreateKeyBody = Type.Object(
  { user_id: Type.Optional(Uuid), scope: Type.Optional(KeyScope), label: Type.Optional(Type.String({ maxLength: 200 })) },
  strict,
)
export const KeyListQuery = Type.Object({ user_id: Type.Optional(Uuid), scope: Type.Optional(KeyScope) })

export const InviteBody = Type.Object({ email: Email, role: Type.Optional(StringEnum(['admin', 'user'] as const)) }, strict)
export const Invitation = Type.Object({ token: Type.String(), email: Type.String(), role: Type.String(), expires_at: Timestamp })
export const UserPatch = Type.Object(
  {
    role: Type.Optional(Role),
    tier: Type.Optional(Nullable(Tier)),
    disabled: Type.Optional(Type.Boolean()),
    name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { ...strict, minProperties: 1 },
)

/** Login's answer when the user turned two-factor sign-in on: no tokens yet, a challenge for POST /auth/login/mfa. */
export const MfaChallenge = Type.Object({
  mfa_required: Type.Literal(true),
  mfa_token: Type.String(),
  methods: Type.Array(StringEnum(MFA_METHODS)),
})
export const LoginAnswer = Type.Union([Session, MfaChallenge])
/** A TOTP code (6 digits) or a recovery code (`xxxx-xxxx-xxxx`). */
const Code = Type.String({ minLength: 1, maxLength: 64 })
export const MfaLoginBody = Type.Object({ mfa_token: Type.String({ minLength: 1, maxLength: 512 }), code: Code }, strict)
export const TotpSetup = Type.Object({ secret: Type.String(), otpauth_url: Type.String() })
const AccountPassword = Type.String({ minLength: 1, maxLength: 1024 })
export const TotpSetupBody = Type.Object({ password: AccountPassword }, strict)
export const TotpConfirmBody = Type.Object({ password: AccountPassword, code: Code }, strict)
export const RecoveryCodes = Type.Object({ recovery_codes: Type.Array(Type.String()) })
export const TotpDisableBody = Type.Object({ password: AccountPassword, code: Code }, strict)
export const TwoFactorStatus = Type.Object({ enabled: Type.Boolean(), recovery_codes_left: Type.Integer() })

export const AppPasswordBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }, strict)
export const AppPassword = Type.Object({ id: Uuid, name: Type.String(), created_at: Timestamp, last_used_at: Nullable(Timestamp) })
export const CreatedAppPassword = Type.Composite([AppPassword, Type.Object({ password: Type.String() })])

export const SessionInfo = Type.Object({
  id: Uuid,
  created_at: Timestamp,
  last_used_at: Timestamp,
  /** The User-Agent the session was last refreshed from. */
  client: Nullable(Type.String()),
  address: Nullable(Type.String()),
  /** Whether this is the session of the token that asked. */
  current: Type.Boolean(),
})
