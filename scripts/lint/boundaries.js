// The import boundaries between Hearth's layers, as an ESLint rule (docs/plugins.md "Where shared code
// lives and what a plugin may import"):
// - lib/ imports nothing from core/, plugins/ or drivers/;
// - a plugin imports the plugin API (core/plugin-api), lib/, drivers, its own folder, and another
//   plugin only through that plugin's public.ts, and only a plugin its manifest lists in `dependencies`
//   (loaded first, so what public.ts describes is there).
// Tests may reach further (they build apps and drive internals on purpose).
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'

const root = resolve(dirname(new URL(import.meta.url).pathname), '..', '..')

const parts = (file) => relative(root, file).split(sep)
const isTest = (p) => p.includes('test')

function problem(fromFile, spec) {
  if (!spec.startsWith('.')) return null
  const from = parts(fromFile)
  if (isTest(from)) return null
  const to = parts(resolve(dirname(fromFile), spec))
  if (from[0] === 'lib' && ['core', 'plugins', 'drivers'].includes(to[0]))
    return `lib/ knows no Hearth domain: it may not import ${to.join('/')}`
  if (from[0] !== 'plugins') return null
  if (to[0] === 'core' && to.join('/') !== 'core/plugin-api.js')
    return `a plugin reaches the core through core/plugin-api only, not ${to.join('/')}`
  if (to[0] !== 'plugins' || to[1] === from[1]) return null
  if (!/^public\.(js|ts)$/.test(to.slice(2).join('/'))) return `a plugin imports another plugin only through its public.ts: ${to.join('/')}`
  if (!dependenciesOf(from[1]).includes(to[1]))
    return `plugins/${from[1]} imports plugins/${to[1]}/public.ts but does not list '${to[1]}' in its manifest's dependencies`
  return null
}

/** The names a plugin's manifest (its index.ts) lists in `dependencies`, read from the source text. */
const manifests = new Map()
function dependenciesOf(plugin) {
  if (!manifests.has(plugin)) {
    let text = ''
    try {
      text = readFileSync(join(root, 'plugins', plugin, 'index.ts'), 'utf8')
    } catch {}
    const list = /dependencies:\s*\[([^\]]*)\]/.exec(text)?.[1] ?? ''
    manifests.set(
      plugin,
      [...list.matchAll(/['"]([a-z][a-z0-9-]*)['"]/g)].map((m) => m[1]),
    )
  }
  return manifests.get(plugin)
}

const rule = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string') return
      const message = problem(context.filename, node.source.value)
      if (message) context.report({ node: node.source, message })
    }
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check }
  },
}

export default { rules: { imports: rule } }
