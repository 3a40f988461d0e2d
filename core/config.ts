import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox'
import { Errors } from '@sinclair/typebox/errors'
import { defaults } from '../config/defaults.js'
import { isSecretSetting, REDACTED } from './logging/redact.js'
import { env } from '../lib/config-env.js'
import { parseAddressList } from '../lib/address-list.js'

/**
 * Configuration: embedded defaults < <data>/hearth.env < environment.
 * Every schema property names its variable with `env`; plugins declare their
 * own slices the same way and get them validated through `readSlice`.
 */

export const CoreConfig = Type.Object({
  port: env('HEARTH_PORT', Type.Integer({ minimum: 0, maximum: 65535 })),
  host: env('HEARTH_HOST', Type.String({ minLength: 1 })),
  dataDir: env('HEARTH_DATA_DIR', Type.String({ minLength: 1 })),
  systemToken: env('HEARTH_SYSTEM_TOKEN', Type.String({ minLength: 32 })),
  jwtSecret: env('HEARTH_JWT_SECRET', Type.String({ minLength: 32 })),
  encryptionKey: env('HEARTH_ENCRYPTION_KEY', Type.String({ pattern: '^[0-9a-f]{64}$' })),
  tier: env('HEARTH_TIER', Type.Union([Type.Literal('free'), Type.Literal('pro')])),
  logLevel: env('HEARTH_LOG_LEVEL', Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)))),
  /** auto: readable lines when stdout is a terminal, JSON otherwise. */
  logFormat: env('HEARTH_LOG_FORMAT', Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')])),
  pluginsDir: env('HEARTH_PLUGINS_DIR', Type.String()),
  /** Plugins not to load, built-in or third-party (comma-separated names); what needs them is not loaded either. */
  disabledPlugins: env('HEARTH_DISABLED_PLUGINS', Type.Array(Type.String({ pattern: '^[a-z][a-z0-9-]*$' }), { maxItems: 100 })),
  bodyLimit: env('HEARTH_BODY_LIMIT', Type.Integer({ minimum: 1024 })),
  /** Bytes one answer may hold (list pages, DAV reports, MCP results): work stops when it is spent. */
  answerBudget: env('HEARTH_ANSWER_BUDGET', Type.Integer({ minimum: 65536 })),
  /** Requests per minute per token (or per client without one). */
  rateLimit: env('HEARTH_RATE_LIMIT', Type.Integer({ minimum: 1 })),
  /** Failed sign-ins per (account, client) in the window; a client's failures on all accounts: five times this. */
  loginFailLimit: env('HEARTH_LOGIN_FAIL_LIMIT', Type.Integer({ minimum: 1 })),
  /**
   * Peers whose X-Forwarded-* headers are believed (addresses and a.b.c.d/n networks, or `none`). Empty:
   * the loopback addresses when the built-in proxy plugin runs (its Caddy is on this host), else none.
   */
  trustedProxies: env('HEARTH_TRUSTED_PROXIES', Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 64 })),
  /** Open connections one client (an IPv4 address, an IPv6 /64) may hold; trusted proxies are not counted. */
  maxConnectionsPerClient: env('HEARTH_MAX_CONNECTIONS_PER_CLIENT', Type.Integer({ minimum: 1 })),
  mailerUrl: env('HEARTH_MAILER_URL', Type.String()),
  /**
   * The name (and port, when not 443) browsers reach Hearth at over HTTPS: the passkeys' relying party.
   * Empty: passkeys are off (a credential is bound to one name; a guessed one would strand them).
   */
  publicHostname: env(
    'HEARTH_PUBLIC_HOSTNAME',
    Type.String({ maxLength: 259, pattern: '^$|^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\\.[A-Za-z0-9-]{1,63})*(?::[0-9]{1,5})?$' }),
  ),
  /** Data folders `hearth restore` set aside to keep once the restored daemon has started. */
  restoreKeep: env('HEARTH_RESTORE_KEEP', Type.Integer({ minimum: 0, maximum: 100 })),
})
export type CoreConfig = Static<typeof CoreConfig>

/** The raw settings (env names → strings) every slice is read from. */
export type ConfigSources = Record<string, string | undefined>

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'))
    this.name = 'ConfigError'
  }
}

/** Parses KEY=VALUE lines (comments and blank lines ignored, optional quotes). */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (!line || line.startsWith('#')) continue
    const eq = line.indexOf('=')
    if (eq < 1) continue
    let value = line.slice(eq + 1).trim()
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1)
    out[line.slice(0, eq).trim()] = value
  }
  return out
}

export function envFilePath(dataDir: string): string {
  return join(dataDir, 'hearth.env')
}

/** Merges the three layers; the data folder itself may only come from the environment or defaults. */
export function collectSources(processEnv: ConfigSources): ConfigSources {
  const dataDir = resolve(processEnv.HEARTH_DATA_DIR || defaults.HEARTH_DATA_DIR)
  const file = envFilePath(dataDir)
  const fromFile = existsSync(file) ? parseEnvFile(readFileSync(file, 'utf8')) : {}
  const merged: ConfigSources = { ...defaults, ...fromFile }
  for (const [k, v] of Object.entries(processEnv)) if (k.startsWith('HEARTH_') && v !== undefined && v !== '') merged[k] = v
  merged.HEARTH_DATA_DIR = dataDir
  return merged
}

function coerce(schema: TSchema, raw: string): unknown {
  const kind = schema.type
  if (kind === 'integer' || kind === 'number') return raw.trim() === '' ? raw : Number(raw)
  if (kind === 'boolean') return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw
  if (kind === 'array')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  return raw
}

/**
 * Reads one slice: each property from its `env` variable (or the schema default),
 * validated; every bad value is reported with its variable name.
 */
export function readSlice<T extends TObject>(schema: T, sources: ConfigSources, label = 'config'): Static<T> {
  const out: Record<string, unknown> = {}
  const problems: string[] = []
  for (const [key, prop] of Object.entries(schema.properties) as Array<[string, TSchema]>) {
    const name = (prop.env as string | undefined) ?? key
    const raw = sources[name]
    const value = raw === undefined ? prop.default : coerce(prop, raw)
    if (value === undefined) {
      if (!schema.required?.includes(key)) continue
      problems.push(`${name} is required (${label})`)
      continue
    }
    const error = Errors(prop, value).First()
    // The problem goes to stderr and so to the journal: a secret's value is not repeated there.
    const shown = isSecretSetting(name) ? REDACTED : (raw ?? JSON.stringify(value))
    if (error) problems.push(`${name}=${shown} is invalid: ${error.message}`)
    else out[key] = value
  }
  if (problems.length) throw new ConfigError(problems)
  return out as Static<T>
}

export function loadCoreConfig(sources: ConfigSources): CoreConfig {
  const config = readSlice(CoreConfig, sources, 'core')
  const proxies = config.trustedProxies
  const parsed = proxies.length === 1 && proxies[0] === 'none' ? null : parseAddressList(proxies)
  if (parsed && 'problem' in parsed)
    throw new ConfigError([`HEARTH_TRUSTED_PROXIES=${sources.HEARTH_TRUSTED_PROXIES} is invalid: ${parsed.problem}`])
  return config
}
