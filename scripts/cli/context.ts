import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { type ConfigSources, type CoreConfig, collectSources, loadCoreConfig } from '../../core/config.js'
import { type DaemonLock, liveDaemon } from '../../core/daemon-state.js'
import { migrate, readMigrations } from '../../core/db/migrate.js'
import { databasePath, type Db, openDatabase } from '../../core/db/sqlite.js'
import { ensureSecrets, withSecretPlaceholders } from '../../core/secrets.js'
import { CliError, EXIT } from './command.js'

/** An answer of the daemon's API: the envelope's data, or a CliError naming the error code. */
export interface Api {
  readonly base: string
  call<T>(method: string, path: string, body?: unknown): Promise<T>
}

/**
 * What every command starts from: the settings (environment over hearth.env over defaults),
 * and the daemon if it runs. Commands that change data go through the daemon's API when it
 * runs (its caches and events stay right) and to the database when it does not.
 */
export interface Context {
  readonly env: NodeJS.ProcessEnv
  readonly sources: ConfigSources
  /** The core settings; secrets not yet generated are stand-ins (nothing is written). */
  readonly config: CoreConfig
  /** Creates the data folder and secrets if missing, like the daemon's first start. */
  ensureConfig(): CoreConfig
  /** The running daemon of this data folder, or null. */
  daemon(): DaemonLock | null
  /** The API of the running daemon with the system token, acting for the first owner. */
  api(): Promise<Api>
  /** A read-write connection with the core schema migrated (the daemon must not run: callers check). */
  openDb(): Db
  /** A read-only connection, safe beside the running daemon. */
  readDb(): Db
  out(line: string): void
}

const hostFor = (host: string) => (host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host)

export function createContext(env: NodeJS.ProcessEnv = process.env): Context {
  const sources = collectSources(env)
  const config = loadCoreConfig(withSecretPlaceholders(sources))
  let real: CoreConfig | null = null
  const ensureConfig = () => (real ??= loadCoreConfig(ensureSecrets(sources)))

  const readDb = (): Db => {
    const file = databasePath(config.dataDir)
    if (!existsSync(file)) throw new CliError(`no database in ${config.dataDir} (set HEARTH_DATA_DIR, or run \`hearth setup\`)`)
    return new Database(file, { readonly: true, fileMustExist: true })
  }

  const ctx: Context = {
    env,
    sources,
    config,
    ensureConfig,
    daemon: () => liveDaemon(config.dataDir),
    async api() {
      const lock = ctx.daemon()
      if (!lock) throw new CliError('the daemon is not running', EXIT.DAEMON)
      const token = ensureConfig().systemToken
      const base = `http://${hostFor(lock.host)}:${lock.port}/api/v1`
      // The system token acts for a user through X-Svc-User-Id; admin routes need one once there are several users.
      const db = readDb()
      let owner: { id: string } | undefined
      try {
        owner = db.prepare("SELECT id FROM users WHERE role = 'owner' AND disabled = 0 ORDER BY created_at LIMIT 1").get() as
          { id: string } | undefined
      } finally {
        db.close()
      }
      return {
        base,
        async call<T>(method: string, path: string, body?: unknown): Promise<T> {
          let res: Response
          try {
            res = await fetch(`${base}${path}`, {
              method,
              headers: {
                authorization: `Bearer ${token}`,
                ...(owner ? { 'x-svc-user-id': owner.id } : {}),
                ...(body === undefined ? {} : { 'content-type': 'application/json' }),
                'x-svc-source': 'hearth-cli',
              },
              body: body === undefined ? undefined : JSON.stringify(body),
              signal: AbortSignal.timeout(30_000),
            })
          } catch (err) {
            throw new CliError(`the daemon (pid ${lock.pid}) does not answer on ${base}: ${(err as Error).message}`, EXIT.DAEMON)
          }
          const payload = (await res.json().catch(() => null)) as { data?: T; error?: { code: string; message: string } } | null
          if (!res.ok || !payload || payload.error)
            throw new CliError(`${payload?.error?.code ?? res.status}: ${payload?.error?.message ?? res.statusText}`)
          return payload.data as T
        },
      }
    },
    openDb() {
      const db = openDatabase(databasePath(ensureConfig().dataDir))
      migrate(db, 'core', readMigrations(new URL('../../core/auth/migrations/', import.meta.url)))
      return db
    },
    readDb,
    out: (line) => process.stdout.write(`${line}\n`),
  }
  return ctx
}
