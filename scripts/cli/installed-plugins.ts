import { builtinPlugins } from '../../core/builtin-plugins.js'
import type { HearthPlugin } from '../../core/plugin-api.js'
import { discoverPlugins } from '../../core/plugin-loader.js'

/**
 * The plugins this installation has: the built-in ones (builtinPlugins, which the bundle replaces with
 * its static list: the bundle has no plugins/ folder to discover) and those in HEARTH_PLUGINS_DIR that load.
 */
export async function installedPlugins(pluginsDir: string): Promise<HearthPlugin[]> {
  const thirdParty = (await discoverPlugins(pluginsDir)).flatMap((d) => (d.plugin ? [d.plugin] : []))
  return [...(await builtinPlugins()), ...thirdParty]
}
