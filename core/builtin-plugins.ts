import type { HearthPlugin } from './plugin-api.js'
import { discoverPlugins } from './plugin-loader.js'

/**
 * The plugins shipped in this tree: every folder of plugins/ with an index.js. The production bundle
 * (scripts/bundle.mjs) replaces this module with a static list of the same folders, so the bundled
 * daemon needs no plugins/ folder to list.
 */
export async function builtinPlugins(): Promise<HearthPlugin[]> {
  return (await discoverPlugins(new URL('../plugins/', import.meta.url).pathname)).map((d) => {
    if (!d.plugin) throw new Error(`built-in plugin ${d.dir} failed: ${d.error}`)
    return d.plugin
  })
}
