/**
 * PUBLIC: the one module plugin authors build against (built-in plugins too).
 * It is versioned by PLUGIN_API_VERSION; a plugin states the range it targets
 * in `manifest.apiVersion` and is refused when the core does not satisfy it.
 * See docs/plugins.md.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox'
import type { HearthTypeProvider } from './type-provider.js'
import type Database from 'better-sqlite3'
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import type { AuthContext, KeyScope, RouteGuards } from './auth/context.js'
import type { TtlCache } from './cache.js'
import type { Errors } from './errors.js'
import type { Metrics } from './metrics.js'
import type { EventBus } from './events.js'
import type { Hal } from './hal/registry.js'
import type { RouteEntry } from './route-pipeline.js'
import type { Scheduler } from './scheduler.js'
import type { ByteBudget } from '../lib/byte-budget.js'

export const PLUGIN_API_VERSION = '1.9.0'

export interface PluginManifest<C extends TObject = TObject> {
  /** Lowercase, [a-z][a-z0-9-]*; also the default route prefix. */
  name: string
  version: string
  /** Semver range of the plugin API this plugin targets, e.g. '^1.0.0'. */
  apiVersion: string
  description?: string
  /** Plugins that must be loaded first. */
  dependencies?: string[]
  /** Capabilities every route of this plugin needs ('kind' or 'kind.flag'). */
  requires?: string[]
  /** Route prefix under /api/v1; default '/<name>'; '' mounts at /api/v1 itself. */
  prefix?: string
  /**
   * Mount the routes at the server's root instead of under /api/v1 (protocols with fixed
   * paths: `/dav/`, `/.well-known/...`); `prefix` then applies from `/`. Routes still pass the pipeline.
   */
  root?: boolean
  /** Folder of numbered SQL migrations (001-init.sql, 002-...), applied once, in order. */
  migrations?: string | URL
  /** This plugin's config slice. A property may carry `env: 'HEARTH_X'` to name its variable. */
  config?: C
  /** Descriptions of the OpenAPI tags this plugin's routes use besides its name (the default tag). */
  tags?: Record<string, string>
  /** Which API-key scopes reach this plugin's routes unless a route says otherwise (core/auth/access.ts). Default 'general'. */
  scope?: RouteGuards['scope']
}

export interface HealthReport {
  status: 'ok' | 'degraded' | 'unavailable' | 'disabled'
  message?: string
}

export interface Secrets {
  /** AES-256-GCM under the instance key kept in the data folder. */
  encrypt(plaintext: string): string
  decrypt(ciphertext: string): string
}

export interface CacheFactoryOptions {
  ttlMs: number
  /** Event patterns that clear the whole cache, e.g. ['driver.changed']. */
  clearOn?: string[]
  maxEntries?: number
}

/** The versioned object every plugin receives. */
export interface HearthApi<C extends TObject = TObject> {
  readonly version: string
  readonly coreVersion: string
  readonly plugin: string
  /** The shared SQLite handle (WAL, foreign keys on); this plugin's migrations are applied. */
  readonly db: Database.Database
  /** This plugin's validated config slice. */
  readonly config: Static<C>
  readonly log: FastifyBaseLogger
  readonly events: EventBus
  readonly cron: Scheduler
  readonly hal: Hal
  readonly errors: Errors & { define(code: string, status: number, message: string): void }
  readonly secrets: Secrets
  readonly dataDir: string
  /** Milliseconds since the epoch; injectable in tests. */
  now(): number
  /** A fresh byte budget of the configured answer size (HEARTH_ANSWER_BUDGET) for building one answer. */
  answerBudget(): ByteBudget
  cache<V>(opts: CacheFactoryOptions): TtlCache<V>
  /**
   * A TypeBox schema as a check with the API's body rules (no coercion, unknown
   * fields refused); throws VALIDATION_ERROR with { field, constraint }.
   */
  validator(schema: TSchema): (value: unknown) => void
  /**
   * A TypeBox schema as the JSON writer response schemas get (same compiler, same field order and
   * formats), as a function.
   */
  serializer(schema: TSchema): (value: unknown) => string
  health: { register(component: string, check: () => HealthReport | Promise<HealthReport>): void }
  /**
   * Resolves credentials the way the route guard does (system token, API key, JWT),
   * for connections that outlive one request (WebSockets re-checking their token).
   * Throws 401 UNAUTHORIZED for anything invalid, revoked or disabled.
   */
  auth: {
    authenticate(headers: { authorization?: string; 'x-svc-user-id'?: string | string[] }): Promise<AuthContext>
    /**
     * HTTP Basic sign-in for protocol clients without bearer tokens (CalDAV/CardDAV): user name =
     * the user's email, password = an API key of `scope` owned by that user. Failures are throttled
     * like logins (per client address and account: 429 RATE_LIMITED once spent); anything wrong
     * throws 401 UNAUTHORIZED carrying `WWW-Authenticate: Basic realm="Hearth"`.
     */
    basic(authorization: string | undefined, client: string, scope: KeyScope): AuthContext
    /**
     * An active member of this instance by user id or email (case-insensitive), or undefined: for
     * plugins letting one member name another (sharing). Never the password hash. Since 1.8.0.
     */
    member(idOrEmail: string): Member | undefined
  }
  /** Prometheus metrics of this plugin, read at each scrape of GET /metrics (name them `hearth_<plugin>_...`). */
  metrics: Metrics
  /** Runs `fn` when the daemon closes, after in-flight requests finished. */
  onClose(fn: () => Promise<void> | void): void
  /**
   * Services plugins share. `provide` publishes this plugin's service under its own name;
   * `get` returns another plugin's, which must be among this plugin's `dependencies`
   * (so it is loaded first). Type it with the providing plugin's exported interface.
   */
  services: PluginServices
  /**
   * Every documented route of the loaded plugins, by operationId (`notes.create`), as declared:
   * method, full path, schemas and guards. For plugins that serve existing routes another way
   * (the MCP tools call them through `app.inject` and derive their inputs from these schemas).
   * Routes of plugins loaded later appear once they are registered (read it at request time).
   */
  routes: { get(operationId: string): RouteEntry | undefined }
}

/** A member as another member may see them (HearthApi.auth.member). */
export interface Member {
  id: string
  email: string
  name: string | null
}

export interface PluginServices {
  provide<T>(service: T): void
  get<T>(plugin: string): T
}

export type PluginInstance = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  HearthTypeProvider
>

export interface HearthPlugin<C extends TObject = TObject> {
  manifest: PluginManifest<C>
  register(app: PluginInstance, api: HearthApi<C>): Promise<void> | void
}

export function definePlugin<C extends TObject = TObject>(
  manifest: PluginManifest<C>,
  register: HearthPlugin<C>['register'],
): HearthPlugin<C> {
  return { manifest, register }
}

declare module 'fastify' {
  // Declaration merging: route `config` accepts the guards; the empty body is the point.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends RouteGuards {}
  interface FastifyRequest {
    /** Set on authenticated routes. */
    auth: AuthContext
    /**
     * The user whose data the request reads and writes: set by the guard on every
     * authenticated route that needs a user context (the default); '' elsewhere.
     */
    userId: string
    /** Value of X-Svc-Source, for records' `source`. */
    svcSource: string | null
    /**
     * The bytes this request's answer is built within: HEARTH_ANSWER_BUDGET, or less when the
     * client asks for less (X-Answer-Budget). Every list page is cut to it by the core (since 1.5.0).
     */
    readonly answerBudget: number
  }
}

export type { AuthContext, KeyScope, RouteGuards } from './auth/context.js'
export type { RouteEntry, RouteSchema } from './route-pipeline.js'
export type { TtlCache } from './cache.js'
export type { Metrics, Sample } from './metrics.js'
export { HttpError } from './errors.js'
// The names a restore gives the data folder it sets aside and its marker, for the backups plugin's restore.
export { ASIDE_INFIX, RESTORE_MARKER } from './daemon-state.js'
export { checkTargetUrl } from './outbound-target.js'
export { readUploadedFile, type UploadOptions } from './uploads.js'
/**
 * Plugin API 1.2 to 1.6 let a plugin attach an object's JSON text for the envelope to send as is; since 1.7
 * the envelope always serializes (the records plugin, its one user, keeps records without their text).
 * Kept so that a plugin importing them still loads: `withJsonText` attaches nothing, `jsonTextOf` finds nothing.
 * @deprecated
 */
export const withJsonText = <T extends object>(value: T, _json: string): T => value
/** @deprecated see withJsonText */
export const jsonTextOf = (_value: unknown): string | undefined => undefined
export { preparedOnUse, type PreparedStatements, type StatementSource } from './db/prepared-on-use.js'
export type { EventBus, EventInput, EventListener, HearthEvent, ReadableEvent, ReaderRule } from './events.js'
export { matches as eventMatches } from './events.js'
export type { DetectResult, DriverReport, Hal } from './hal/registry.js'
export type {
  ActiveDriver,
  DriverChangedEvent,
  DriverContext,
  DriverInstance,
  DriverManifest,
  DriverModule,
  ProbeResult,
} from './hal/driver.js'
export { defineDriver } from './hal/driver.js'
export type { CommandRunner, RunOptions, RunResult } from './hal/command.js'
export { runCommand, ToolMissingError } from './hal/command.js'
export type { Scheduler, ScheduledJob, ScheduleOptions } from './scheduler.js'
export * from './schemas.js'
// TypeBox through the core: a plugin built outside the tree uses the same copy as the core's schemas.
export { Type } from '@sinclair/typebox'
export type { Static, TObject, TSchema } from '@sinclair/typebox'
