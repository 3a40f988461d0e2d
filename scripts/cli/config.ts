import { existsSync, readFileSync } from 'node:fs'
import type { TSchema } from '@sinclair/typebox'
import { defaults } from '../../config/defaults.js'
import { CoreConfig, envFilePath, parseEnvFile } from '../../core/config.js'
import { isSecretSetting } from '../../core/logging/redact.js'
import { maskUrlCredentials } from '../../lib/url-credentials.js'
import { type Command, EXIT } from './command.js'
import type { Context } from './context.js'
import { installedPlugins } from './installed-plugins.js'

export interface Setting {
  name: string
  value: string
  source: 'environment' | 'hearth.env' | 'default' | 'unset'
  /** The plugin whose config declares it ('core' for the core's); null when nothing declares it. */
  owner: string | null
  secret: boolean
}

/**
 * A secret shows only that it is set; a URL shows no user or password, and a URL inside a value
 * (`rest:https://user:password@host/…`, an offsite repository) no password.
 */
export function mask(name: string, value: string): string {
  if (!value) return value
  if (isSecretSetting(name)) return `******** (${value.length} characters)`
  return maskUrlCredentials(value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1***@'))
}

/** Every setting the core and the plugins declare, plus any other HEARTH_* given, with where its value comes from. */
export async function effectiveSettings(ctx: Context): Promise<Setting[]> {
  const file = envFilePath(ctx.config.dataDir)
  const fromFile = existsSync(file) ? parseEnvFile(readFileSync(file, 'utf8')) : {}
  const declared = new Map<string, { owner: string; fallback?: unknown }>()
  const declare = (owner: string, props: Record<string, TSchema>) => {
    for (const [key, prop] of Object.entries(props))
      declared.set((prop.env as string | undefined) ?? key, { owner, fallback: prop.default })
  }
  declare('core', CoreConfig.properties as Record<string, TSchema>)
  for (const { manifest: m } of await installedPlugins(ctx.config.pluginsDir))
    if (m?.config) declare(m.name, m.config.properties as Record<string, TSchema>)
  const names = new Set([...declared.keys(), ...Object.keys(fromFile), ...Object.keys(ctx.env).filter((k) => k.startsWith('HEARTH_'))])
  const out: Setting[] = []
  for (const name of [...names].sort()) {
    const envValue = ctx.env[name]
    const d = declared.get(name)
    let value: string
    let source: Setting['source']
    if (name === 'HEARTH_DATA_DIR') [value, source] = [ctx.config.dataDir, envValue ? 'environment' : 'default']
    else if (envValue !== undefined && envValue !== '') [value, source] = [envValue, 'environment']
    else if (fromFile[name] !== undefined) [value, source] = [fromFile[name] as string, 'hearth.env']
    else if (defaults[name] !== undefined) [value, source] = [defaults[name] as string, 'default']
    else if (d?.fallback !== undefined) [value, source] = [Array.isArray(d.fallback) ? d.fallback.join(',') : String(d.fallback), 'default']
    else [value, source] = ['', 'unset']
    out.push({ name, value: mask(name, value), source, owner: d?.owner ?? null, secret: isSecretSetting(name) })
  }
  return out
}

export const config: Command = {
  name: 'config',
  summary: 'Show the effective settings and where each comes from (secrets masked)',
  usage: 'hearth config [--json]',
  help: `Sources, strongest first: the environment, <data>/hearth.env, the built-in default.
Secrets (tokens, keys, passwords, passphrases) show only that they are set; URLs lose their user and password, a URL inside a value (an off-site repository) its password.`,
  options: { json: { type: 'boolean' } },
  maxArgs: 0,
  async run(args, ctx) {
    const settings = await effectiveSettings(ctx)
    if (args.values.json) ctx.out(JSON.stringify(settings, null, 2))
    else {
      const width = Math.max(...settings.map((s) => s.name.length))
      for (const s of settings)
        ctx.out(
          `${s.name.padEnd(width)}  ${s.value === '' ? '(empty)' : s.value}  [${s.source}${s.owner && s.owner !== 'core' ? `, ${s.owner}` : ''}]`,
        )
    }
    return EXIT.OK
  },
}
