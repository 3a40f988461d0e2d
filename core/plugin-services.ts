import type { PluginManifest, PluginServices } from './plugin-api.js'

/**
 * The registry behind `api.services`: one service per providing plugin, readable only by plugins
 * that declared the provider in `dependencies` (the loader registers those first, so a `get`
 * during registration finds the service, and the dependency graph stays the one the manifests show).
 */
export function createPluginServices() {
  const provided = new Map<string, unknown>()
  return {
    /**
     * A plugin's service as the core reads it (the core imports no plugin: it names the shape it
     * needs, and gets undefined when the plugin is disabled or provides nothing).
     */
    provided: <T>(plugin: string): T | undefined => provided.get(plugin) as T | undefined,
    for(manifest: PluginManifest): PluginServices {
      return {
        provide(service) {
          if (provided.has(manifest.name)) throw new Error(`plugin ${manifest.name} already provides a service`)
          provided.set(manifest.name, service)
        },
        get<T>(plugin: string): T {
          if (!(manifest.dependencies ?? []).includes(plugin))
            throw new Error(`plugin ${manifest.name} must list ${plugin} in its dependencies to use its service`)
          if (!provided.has(plugin)) throw new Error(`plugin ${plugin} provides no service`)
          return provided.get(plugin) as T
        },
      }
    },
  }
}
