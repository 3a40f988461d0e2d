import { type Actor, createAccounts } from '../../core/auth/accounts.js'
import { createApiKeys } from '../../core/auth/api-keys.js'
import { createAppPasswords } from '../../core/auth/app-passwords.js'
import { createMfaChallenges } from '../../core/auth/mfa-challenges.js'
import { createPasskeyStore } from '../../core/auth/passkey-store.js'
import { createSecondFactor } from '../../core/auth/second-factor.js'
import { createAuthService } from '../../core/auth/service.js'
import { createSignInThrottle } from '../../core/auth/sign-in-throttle.js'
import { createTokens } from '../../core/auth/tokens.js'
import { createUsers, type PublicUser, type UserRow, type Users } from '../../core/auth/users.js'
import type { CoreConfig } from '../../core/config.js'
import type { Db } from '../../core/db/sqlite.js'
import { createEventBus } from '../../core/events.js'
import { createSecretBox } from '../../core/secrets.js'
import { CliError, type Parsed } from './command.js'
import type { Api, Context } from './context.js'

/** The core's own services over a connection of the CLI: the same rules the API applies, with the daemon stopped. */
export function coreServices(db: Db, config: CoreConfig) {
  const users = createUsers(db, config.tier)
  const tokens = createTokens(db, config.jwtSecret)
  const silent = { info() {}, warn() {}, error() {}, debug() {}, child: () => silent } as never
  const secondFactor = createSecondFactor({ db, box: createSecretBox(config.encryptionKey), now: Date.now })
  const apiKeys = createApiKeys(db)
  const auth = createAuthService({
    db,
    users,
    tokens,
    appPasswords: createAppPasswords({ apiKeys, events: createEventBus(() => {}) }),
    log: silent,
    events: createEventBus(() => {}),
    signIns: createSignInThrottle({ failLimit: config.loginFailLimit }),
    secondFactor,
    challenges: createMfaChallenges(Date.now),
    mfaThrottle: createSignInThrottle({ failLimit: config.loginFailLimit }),
    passwordChecks: createSignInThrottle({ failLimit: config.loginFailLimit, accountFactor: 1 }),
    deliverReset: async () => false,
  })
  const accounts = createAccounts({ users, apiKeys, tokens, events: createEventBus(() => {}) })
  const passkeys = createPasskeyStore(db)
  return { users, tokens, auth, apiKeys, accounts, secondFactor, passkeys, operator: () => operator(users) }
}

/** Runs `direct` on the CLI's own connection (the core's services over it), closed afterwards. */
export function withDb<T>(ctx: Context, direct: (s: ReturnType<typeof coreServices>) => T): T {
  const db = ctx.openDb()
  try {
    return direct(coreServices(db, ctx.ensureConfig()))
  } finally {
    db.close()
  }
}

/**
 * Whom the CLI acts as on a stopped daemon: the first active owner, as it does through the running
 * daemon's API. Whoever runs it holds the data folder, so an owner's rules are the right ones.
 */
function operator(users: Users): Actor & { userId: string } {
  const owner = users.list().find((u) => u.role === 'owner' && !u.disabled)
  if (!owner) throw new CliError('no owner yet: run `hearth setup` first')
  return { role: 'owner', userId: owner.id }
}

/** A user named by id or email. */
export function findUser(users: Users, who: string): UserRow {
  const user = users.get(who) ?? users.byEmail(who)
  if (!user) throw new CliError(`no user ${who}`)
  return user
}

/** A user named by id or email, through the running daemon's API. */
export async function apiUser(api: Api, who: string): Promise<PublicUser> {
  const list = await api.call<PublicUser[]>('GET', '/admin/users')
  const user = list.find((u) => u.id === who || u.email.toLowerCase() === who.toLowerCase())
  if (!user) throw new CliError(`no user ${who}`)
  return user
}

/** A listing as JSON (--json) or one tab-separated line per item. */
export function printList<T>(ctx: Context, args: Parsed, items: T[], row: (item: T) => string): void {
  if (args.values.json) ctx.out(JSON.stringify(items, null, 2))
  else for (const item of items) ctx.out(row(item))
}
