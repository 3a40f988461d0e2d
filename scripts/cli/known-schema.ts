import { readMigrations } from '../../core/db/migrate.js'
import { installedPlugins } from './installed-plugins.js'

/**
 * The highest migration this installation knows per plugin: the core's, every built-in
 * plugin's, and every plugin in HEARTH_PLUGINS_DIR, read from their manifests.
 */
export async function knownSchemaVersions(pluginsDir: string): Promise<Record<string, number>> {
  const max = (folder: string | URL) => Math.max(0, ...readMigrations(folder).map((m) => m.version))
  const known: Record<string, number> = { core: max(new URL('../../core/auth/migrations/', import.meta.url)) }
  for (const { manifest: m } of await installedPlugins(pluginsDir)) {
    if (!m?.name) continue
    known[m.name] = m.migrations ? max(m.migrations) : 0
  }
  return known
}
