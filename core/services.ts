import type { FastifyBaseLogger } from 'fastify'
import type Database from 'better-sqlite3'
import { createAccounts } from './auth/accounts.js'
import { createApiKeys } from './auth/api-keys.js'
import { createAppPasswords } from './auth/app-passwords.js'
import { createMfaChallenges } from './auth/mfa-challenges.js'
import { createPasskeyChallenges } from './auth/passkey-challenges.js'
import { createPasskeyStore } from './auth/passkey-store.js'
import { createPasskeys } from './auth/passkeys.js'
import { relyingParty } from './auth/relying-party.js'
import { createSecondFactor } from './auth/second-factor.js'
import { createTwoFactor } from './auth/two-factor.js'
import { authenticateWith, createCallerResolver } from './auth/authenticate.js'
import { createAuthService } from './auth/service.js'
import { createTokens } from './auth/tokens.js'
import { createUsers } from './auth/users.js'
import { type CacheOptions, createCache, type TtlCache } from './cache.js'
import type { ConfigSources, CoreConfig } from './config.js'
import { createGroupCommit } from './db/group-commit.js'
import { migrate, readMigrations } from './db/migrate.js'
import { backupDatabase, databasePath, openDatabase } from './db/sqlite.js'
import { createMetrics } from './metrics.js'
import { createEventBus, type EventBus } from './events.js'
import { type CommandRunner, runCommand } from './hal/command.js'
import { createHal } from './hal/registry.js'
import type { HealthReport } from './plugin-api.js'
import { createLimiter } from './rate-limit.js'
import { createBasicAuth } from './auth/basic.js'
import { createCallers } from './auth/callers.js'
import { createSignInThrottle } from './auth/sign-in-throttle.js'
import { createScheduler } from './scheduler.js'
import { createSecretBox } from './secrets.js'

/** Wrong second-factor codes one account may take across all clients in 15 minutes, as a multiple of the login fail limit. */
const MFA_ACCOUNT_FACTOR = 5

export interface ServiceOptions {
  run?: CommandRunner
  now?: () => number
}

const FIFTEEN_MINUTES = 15 * 60_000

/** Every domain-free service of the daemon, created once per app. */
export function createServices(config: CoreConfig, sources: ConfigSources, log: FastifyBaseLogger, opts: ServiceOptions) {
  const now = opts.now ?? Date.now
  const db: Database.Database = openDatabase(databasePath(config.dataDir))
  migrate(db, 'core', readMigrations(new URL('./auth/migrations/', import.meta.url)))

  const events: EventBus = createEventBus((err, event) => log.error({ err, event: event.type }, 'event listener failed'))
  const scheduler = createScheduler(log)
  const hal = createHal({ events, log, dataDir: config.dataDir, run: opts.run ?? runCommand, now })
  const metrics = createMetrics({ db, dbPath: databasePath(config.dataDir), hal })
  const users = createUsers(db, config.tier)
  const apiKeys = createApiKeys(db)
  // A session signed out (logout, its revocation, a password change...) closes its live connections at once.
  const tokens = createTokens(db, config.jwtSecret, (userId, sessionId) =>
    events.emit('session.ended', { userId, ...(sessionId ? { id: sessionId } : {}), data: { id: sessionId } }),
  )
  const callers = createCallers(users)
  const resolveCaller = createCallerResolver({ systemToken: config.systemToken, users, apiKeys, tokens, callers })
  const authenticate = authenticateWith(resolveCaller)
  // Failed logins and failed HTTP Basic sign-ins (DAV) share one budget per client and per account from it.
  const signIns = createSignInThrottle({ failLimit: config.loginFailLimit, now })
  const basicAuth = createBasicAuth({ users, apiKeys, signIns, callers })
  const secrets = createSecretBox(config.encryptionKey)
  const secondFactor = createSecondFactor({ db, box: secrets, now })
  // Wrong second-factor codes have their own budget: a mistyped password does not spend the code's tries.
  // And one per account across all clients: a password holder with many addresses must not out-guess
  // a 6-digit code. The code is never logged, only the account.
  const mfaThrottle = createSignInThrottle({
    failLimit: config.loginFailLimit,
    now,
    accountFactor: MFA_ACCOUNT_FACTOR,
    onAccountBlocked: (userId) =>
      log.warn({ userId }, 'too many wrong second-factor codes for this account: its code step is refused for 15 minutes'),
  })
  const appPasswords = createAppPasswords({ apiKeys, events })
  const authService = createAuthService({
    db,
    users,
    tokens,
    appPasswords,
    log,
    events,
    signIns,
    secondFactor,
    challenges: createMfaChallenges(now),
    mfaThrottle,
    passwordChecks: createSignInThrottle({
      failLimit: config.loginFailLimit,
      now,
      accountFactor: 1,
      onAccountBlocked: (userId) =>
        log.warn({ userId }, 'too many wrong current passwords for this account: password changes refused for 15 minutes'),
    }),
    deliverReset: async (email, token) => {
      if (!config.mailerUrl) return false
      const res = await fetch(config.mailerUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: email, subject: 'Hearth password reset', text: `Your password reset token: ${token}` }),
        signal: AbortSignal.timeout(10_000),
      })
      return res.ok
    },
  })
  const passkeys = createPasskeys({
    store: createPasskeyStore(db),
    challenges: createPasskeyChallenges(now),
    users,
    // A passkey that fails counts where a wrong password does: one budget per account and client.
    signIns,
    relyingParty: relyingParty(config.publicHostname),
    session: authService.session,
    log,
  })
  const caches: Array<{ owner: string; stats: { hits: number; misses: number } }> = []
  metrics.register(
    'counter',
    'hearth_cache_requests_total',
    'Lookups of the TTL caches (api.cache) by owner and result',
    ['owner', 'result'],
    () => {
      const byOwner = new Map<string, { hits: number; misses: number }>()
      for (const { owner, stats } of caches) {
        const sum = byOwner.get(owner) ?? { hits: 0, misses: 0 }
        sum.hits += stats.hits
        sum.misses += stats.misses
        byOwner.set(owner, sum)
      }
      return [...byOwner].flatMap(([owner, sum]) => [
        { labels: { owner, result: 'hit' }, value: sum.hits },
        { labels: { owner, result: 'miss' }, value: sum.misses },
      ])
    },
  )
  const health = new Map<string, () => HealthReport | Promise<HealthReport>>()
  const closers: Array<() => Promise<void> | void> = []

  return {
    config,
    sources,
    db,
    groupCommit: createGroupCommit(db),
    metrics,
    events,
    scheduler,
    hal,
    users,
    member: (idOrEmail: string) => users.member(idOrEmail),
    apiKeys,
    tokens,
    authenticate,
    resolveCaller,
    basicAuth,
    authService,
    accounts: createAccounts({ users, apiKeys, tokens, events }),
    twoFactor: createTwoFactor({ users, tokens, secondFactor, mfaThrottle }),
    appPasswords,
    passkeys,
    secondFactor,
    secrets,
    requestLimiter: createLimiter({ max: config.rateLimit, windowMs: 60_000, now }),
    publicLimiter: createLimiter({ max: 30, windowMs: FIFTEEN_MINUTES, now }),
    health,
    closers,
    now,
    /** A TTL cache of `owner` (a plugin's name), counted in hearth_cache_requests_total. */
    cache<V>(options: CacheOptions & { clearOn?: string[] }, owner = 'core'): TtlCache<V> {
      const cache = createCache<V>({ now, ...options })
      for (const pattern of options.clearOn ?? []) events.on(pattern, () => cache.clear())
      caches.push({ owner, stats: cache.stats })
      return cache
    },
    backup: (destination: string) => backupDatabase(db, destination),
  }
}
export type Services = ReturnType<typeof createServices>
