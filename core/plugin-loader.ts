import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { TObject } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import semver from 'semver'
import { ConfigError, type ConfigSources, readSlice } from './config.js'
import { migrate, readMigrations } from './db/migrate.js'
import { HttpError } from './errors.js'
import { PLUGIN_API_VERSION, type HearthApi, type HearthPlugin, type PluginInstance } from './plugin-api.js'
import { installRoutePipeline, type PipelineContext } from './route-pipeline.js'

const NAME = /^[a-z][a-z0-9-]*$/

export interface LoadedPlugin {
  name: string
  version: string
  source: 'core' | 'builtin' | 'third-party'
  status: 'loaded' | 'failed' | 'disabled'
  reason?: string
}

export interface Discovered {
  dir: string
  plugin?: HearthPlugin
  error?: string
  /** Named in `skip` (HEARTH_DISABLED_PLUGINS): not imported. */
  disabled?: boolean
}

/** Imports every `<dir>/<name>/index.js` default export; a module that fails to import is reported, not thrown. */
export async function discoverPlugins(dir: string, skip: ReadonlySet<string> = new Set()): Promise<Discovered[]> {
  if (!dir || !existsSync(dir)) return []
  const found: Discovered[] = []
  for (const name of readdirSync(dir).sort()) {
    const entry = join(dir, name, 'index.js')
    if (!statSync(join(dir, name)).isDirectory() || !existsSync(entry)) continue
    if (skip.has(name)) {
      found.push({ dir: name, disabled: true })
      continue
    }
    try {
      const mod = await import(pathToFileURL(entry).href)
      found.push({ dir: name, plugin: (mod.default ?? mod.plugin) as HearthPlugin })
    } catch (err) {
      found.push({ dir: name, error: `import failed: ${(err as Error).message}` })
    }
  }
  return found
}

/** Why a manifest is refused, or null when it may load. */
export function checkManifest(plugin: HearthPlugin | undefined, loaded: ReadonlySet<string>): string | null {
  const m = plugin?.manifest
  if (!m || typeof plugin?.register !== 'function') return 'not a plugin: export default definePlugin(manifest, register)'
  if (typeof m.name !== 'string' || !NAME.test(m.name)) return `invalid name ${JSON.stringify(m.name)}`
  if (!semver.valid(m.version)) return `invalid version ${JSON.stringify(m.version)}`
  if (!semver.validRange(m.apiVersion)) return `invalid apiVersion range ${JSON.stringify(m.apiVersion)}`
  if (!semver.satisfies(PLUGIN_API_VERSION, m.apiVersion))
    return `targets plugin API ${m.apiVersion}; this core provides ${PLUGIN_API_VERSION}`
  if (loaded.has(m.name)) return `a plugin named ${m.name} is already loaded`
  const missing = (m.dependencies ?? []).filter((d) => !loaded.has(d))
  if (missing.length) return `missing dependencies: ${missing.join(', ')}`
  return null
}

/** Orders plugins so each comes after its dependencies (unknown dependencies are left for checkManifest). */
export function orderByDependencies(plugins: HearthPlugin[]): HearthPlugin[] {
  const byName = new Map(plugins.map((p) => [p.manifest?.name, p]))
  const out: HearthPlugin[] = []
  const state = new Map<HearthPlugin, 'visiting' | 'done'>()
  const visit = (p: HearthPlugin) => {
    if (state.get(p)) return
    state.set(p, 'visiting')
    for (const dep of p.manifest?.dependencies ?? []) {
      const d = byName.get(dep)
      if (d && !state.get(d)) visit(d)
    }
    state.set(p, 'done')
    out.push(p)
  }
  plugins.forEach(visit)
  return out
}

export interface LoaderDeps {
  sources: ConfigSources
  apiFor: (plugin: HearthPlugin, config: unknown) => HearthApi
  /** What every plugin's route pipeline shares (guard dependencies, operationIds). */
  pipeline: Omit<PipelineContext, 'plugin' | 'defaults'>
  /** Tag → description for the OpenAPI document, from the manifests. */
  tags: Map<string, string>
  /** Names HEARTH_DISABLED_PLUGINS lists. */
  disabled?: ReadonlySet<string>
}

/**
 * Registers plugins in dependency order, each encapsulated under /api/v1/<prefix>
 * with its own route pipeline (manifest defaults, guard, envelope, contract).
 * A core or built-in plugin that fails takes the start down (tests catch it);
 * a third-party one is logged and dropped, its routes answering 503.
 */
export async function loadPlugins(
  app: FastifyInstance,
  plugins: HearthPlugin[],
  source: LoadedPlugin['source'],
  deps: LoaderDeps,
  report: LoadedPlugin[],
): Promise<void> {
  const loaded = new Set(report.filter((r) => r.status === 'loaded').map((r) => r.name))
  const off = new Set(report.filter((r) => r.status === 'disabled').map((r) => r.name))
  for (const plugin of orderByDependencies(plugins)) {
    const name = plugin.manifest?.name ?? '(unnamed)'
    // Switched off by configuration, or needing a plugin that is: skipped, never a failed start.
    const needs = (plugin.manifest?.dependencies ?? []).filter((d) => off.has(d))
    if (source !== 'core' && (deps.disabled?.has(name) || needs.length)) {
      off.add(name)
      const reason = needs.length ? `needs the disabled plugin ${needs.join(', ')}` : 'disabled by HEARTH_DISABLED_PLUGINS'
      app.log.info({ plugin: name }, `plugin ${name} not loaded: ${reason}`)
      report.push({ name, version: plugin.manifest?.version ?? '?', source, status: 'disabled', reason })
      continue
    }
    const fail = (reason: string) => {
      if (source !== 'third-party') throw new Error(`${source === 'core' ? 'core' : 'built-in'} plugin ${name} failed: ${reason}`)
      app.log.error({ plugin: name }, `plugin ${name} dropped: ${reason}`)
      report.push({ name, version: plugin.manifest?.version ?? '?', source, status: 'failed', reason })
    }
    const refused = checkManifest(plugin, loaded)
    if (refused) {
      fail(refused)
      continue
    }
    const m = plugin.manifest
    let api: HearthApi
    try {
      const config = m.config ? readSlice(m.config as TObject, deps.sources, m.name) : {}
      api = deps.apiFor(plugin, config)
      if (m.migrations) migrate(api.db, m.name, readMigrations(m.migrations))
    } catch (err) {
      // A bad setting of a built-in plugin stops the start with the same one-line message as the core's.
      if (source !== 'third-party' && err instanceof ConfigError) throw err
      fail((err as Error).message)
      continue
    }
    let broken: string | null = null
    await app.register(
      async (instance) => {
        const child = instance as unknown as PluginInstance
        installRoutePipeline(instance, { ...deps.pipeline, plugin: m.name, defaults: { scope: m.scope, requires: m.requires } })
        if (source === 'third-party') {
          child.addHook('onRequest', async () => {
            if (broken) throw new HttpError('SERVICE_UNAVAILABLE', `Plugin ${m.name} is unavailable`)
          })
        }
        try {
          await plugin.register(child, api)
        } catch (err) {
          if (source !== 'third-party') throw err
          broken = (err as Error).message
        }
      },
      { prefix: `${m.root ? '' : '/api/v1'}${m.prefix ?? `/${m.name}`}` },
    )
    if (broken) {
      fail(broken)
      continue
    }
    loaded.add(m.name)
    deps.tags.set(m.name, m.description ?? `The ${m.name} plugin`)
    for (const [tag, description] of Object.entries(m.tags ?? {})) deps.tags.set(tag, description)
    report.push({ name: m.name, version: m.version, source, status: 'loaded' })
  }
}
