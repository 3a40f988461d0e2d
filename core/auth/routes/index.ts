import type { onRequestAsyncHookHandler } from 'fastify'
import type { PluginInstance } from '../../plugin-api.js'
import type { Accounts } from '../accounts.js'
import type { ApiKeys } from '../api-keys.js'
import type { AppPasswords } from '../app-passwords.js'
import type { Passkeys } from '../passkeys.js'
import type { TwoFactor } from '../two-factor.js'
import type { AuthService } from '../service.js'
import type { Tokens } from '../tokens.js'
import type { Users } from '../users.js'
import { addDeviceRoutes } from './add-device.js'
import { adminUserRoutes } from './admin-users.js'
import { apiKeyRoutes } from './api-keys.js'
import { deviceRoutes } from './devices.js'
import { twoFactorRoutes } from './two-factor.js'
import { passkeyRoutes } from './passkeys.js'
import { recoveryRoutes } from './recovery.js'
import { sessionRoutes } from './session.js'

import type { EventBus } from '../../events.js'

export interface AuthRoutesOptions {
  service: AuthService
  accounts: Accounts
  users: Users
  apiKeys: ApiKeys
  tokens: Tokens
  twoFactor: TwoFactor
  appPasswords: AppPasswords
  passkeys: Passkeys
  /** The root a device must trust to reach `host` over HTTPS (the proxy's own CA, when it serves that name), DER; else null. */
  deviceRoot: (host: string) => Promise<Buffer | null>
  version: string
  throttled: (name: string) => onRequestAsyncHookHandler
  events: EventBus
}

export async function authRoutes(app: PluginInstance, opts: AuthRoutesOptions) {
  await sessionRoutes(app, opts)
  await twoFactorRoutes(app, opts)
  await passkeyRoutes(app, opts)
  await deviceRoutes(app, opts)
  await addDeviceRoutes(app, opts)
  await recoveryRoutes(app, opts)
  await apiKeyRoutes(app, opts)
  await adminUserRoutes(app, opts)
}
