import { Type } from '@sinclair/typebox'
import { Nullable, Role, StringEnum, Tier, Timestamp, Uuid } from '../schemas.js'
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
