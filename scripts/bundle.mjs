// `npm run bundle`: the production build of the daemon and the CLI, straight from the TypeScript
// sources (no tsc needed), into dist/bundle/:
//
//   hearthd.mjs           the daemon (core/main.ts) with every JavaScript dependency inlined
//   hearth.mjs            the CLI (package.json's bin, from its TypeScript source), likewise
//   plugin-api.mjs        core/plugin-api.ts, what a third-party plugin imports as `hearth/plugin-api`
//   chunk-<hash>.mjs      code the three share (esbuild's splitting): one module instance of the plugin
//                         API (HttpError, definePlugin...) for the daemon and the plugins it loads
//   package.json          name, version (read by the code at run time), "type": "module" and the
//                         `./plugin-api` export
//   <src>/migrations/...  every asset the code opens with `new URL('<rel>', import.meta.url)`,
//                         at the path the rewritten URL names (core/auth/migrations, plugins/dns/migrations, ...)
//   externals.json        the packages left out of the bundle (native or reading their own files):
//                         they must be installed beside it, in node_modules/ (scripts/package.mjs copies them)
//
// Three rewrites make the sources bundle-safe without changing how they run from dist/:
// - core/builtin-plugins.ts (which lists plugins/ at run time) becomes a static import of each
//   plugins/<name>/index.ts present at bundle time;
// - `new URL('<rel>', import.meta.url)` is resolved as it would be from the module's dist/ location and
//   rewritten relative to the bundle, and the file or folder is copied there;
// - a banner gives the CommonJS dependencies inlined into ESM their `require`, `__filename`, `__dirname`.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { copyPageAssets } from './page-assets.mjs'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = join(ROOT, 'dist', 'bundle')

/** Not inlined: native addons, packages that load files next to their own sources, optional imports. */
export const EXTERNALS = ['better-sqlite3', 'sqlite-vec', 'sharp', '@fastify/swagger-ui']

const ASSET_URL = /new URL\(\s*(['"])([^'"\n]+)\1\s*,\s*import\.meta\.url\s*\)/g

function builtinPluginsModule() {
  const names = readdirSync(join(ROOT, 'plugins'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'plugins', d.name, 'index.ts')))
    .map((d) => d.name)
    .sort()
  const imports = names.map((n, i) => `import p${i} from '../plugins/${n}/index.ts'`).join('\n')
  return `${imports}\nexport async function builtinPlugins() { return [${names.map((_, i) => `p${i}`).join(', ')}] }\n`
}

function hearthSources(assets) {
  return {
    name: 'hearth-sources',
    setup(b) {
      b.onLoad({ filter: /[\\/]core[\\/]builtin-plugins\.ts$/ }, (args) => ({
        contents: builtinPluginsModule(),
        loader: 'ts',
        resolveDir: dirname(args.path),
      }))
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`)) return undefined
        const source = readFileSync(args.path, 'utf8')
        if (!source.includes('import.meta.url')) return undefined
        // The module runs from dist/<same path>.js: resolve there, as the unbundled code does.
        const distDir = join(ROOT, 'dist', relative(ROOT, dirname(args.path)))
        const contents = source.replace(ASSET_URL, (_m, _q, rel) => {
          const target = resolve(distDir, rel)
          const inDist = relative(join(ROOT, 'dist'), target)
          const assetRel = inDist.startsWith('..') ? relative(ROOT, target) : inDist
          if (assetRel.startsWith('..')) throw new Error(`${args.path}: ${rel} points outside the project`)
          assets.add(assetRel)
          return `new URL(${JSON.stringify(`./${assetRel}${rel.endsWith('/') ? '/' : ''}`)}, import.meta.url)`
        })
        return { contents, loader: 'ts' }
      })
    },
  }
}

/** The CLI's TypeScript source, from package.json's bin (dist/scripts/hearth.js → scripts/hearth.ts). */
function cliSource(pkg) {
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.hearth
  return bin.replace(/^(\.\/)?dist\//, '').replace(/\.js$/, '.ts')
}

const BANNER = [
  "import { createRequire as __hearthRequire } from 'node:module'",
  "import { fileURLToPath as __hearthPath } from 'node:url'",
  'const require = __hearthRequire(import.meta.url)',
  'const __filename = __hearthPath(import.meta.url)',
  "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'))",
].join('\n')

/**
 * esbuild escapes every non-ASCII character of the code (charset 'ascii') but keeps comments as written,
 * and one non-ASCII character (a '→' or '§' in a comment) makes V8 hold the whole file's source as a
 * two-byte string: twice the memory for as long as the daemon runs, and a slower decode at start.
 * What remains non-ASCII after esbuild is comment text, so it is escaped there as \u{...}.
 */
function asciiOnly(path) {
  const text = readFileSync(path, 'utf8')
  const ascii = text.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`)
  if (ascii !== text) writeFileSync(path, ascii)
}

const OUTPUT = {
  legalComments: 'none',
  charset: 'ascii',
  // Whitespace out: V8 holds each loaded file's source for the daemon's life (lazy compilation,
  // Function.prototype.toString), 2.2 MB of it at idle, about a quarter of it indentation and newlines
  // (idle RSS -0.7 MB, docs/performance.md). Names stay (no minifyIdentifiers): stack traces and logs keep
  // function and class names; their line:column map back to the TypeScript through the .map beside each
  // file with `node --enable-source-maps` (docs/operations.md). The maps carry positions, not the sources.
  minifySyntax: true,
  minifyWhitespace: true,
  sourcemap: 'linked',
  sourcesContent: false,
}

export async function bundle() {
  rmSync(OUT, { recursive: true, force: true })
  mkdirSync(OUT, { recursive: true })
  const assets = new Set()
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { hearthd: 'core/main.ts', hearth: cliSource(pkg), 'plugin-api': 'core/plugin-api.ts' },
    outdir: OUT,
    outExtension: { '.js': '.mjs' },
    // Shared code in chunks beside the entries (not in a subfolder: the rewritten asset URLs are relative to
    // the bundle's root): the daemon and a third-party plugin importing hearth/plugin-api get one instance.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    external: EXTERNALS,
    plugins: [hearthSources(assets)],
    banner: { js: BANNER },
    ...OUTPUT,
    // No keepNames: it wraps every function in `__name(fn, "...")`, a defineProperty each time a closure
    // is created, per request in Fastify's and our hot paths (by id: 29-31 -> 23-24 us of CPU a request,
    // docs/performance.md). Names in stack traces stay (V8 infers them); a renamed duplicate shows as `parse2`.
    keepNames: false,
    metafile: true,
    logLevel: 'warning',
  })
  for (const file of Object.keys(result.metafile.outputs)) if (file.endsWith('.mjs')) asciiOnly(join(ROOT, file))
  for (const asset of assets) {
    if (asset === 'package.json') continue
    cpSync(join(ROOT, asset), join(OUT, asset), { recursive: true })
  }
  // The household page's folder again, with the libraries it loads from node_modules.
  copyPageAssets(OUT)
  writeFileSync(
    join(OUT, 'package.json'),
    `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module', exports: { './plugin-api': './plugin-api.mjs' } }, null, 2)}\n`,
  )
  writeFileSync(join(OUT, 'externals.json'), `${JSON.stringify(EXTERNALS, null, 2)}\n`)
  return {
    out: OUT,
    assets: [...assets].sort(),
    outputs: result.metafile.outputs,
    inputs: result.metafile.inputs,
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { out, assets, outputs } = await bundle()
  for (const [file, { bytes }] of Object.entries(outputs))
    if (file.endsWith('.mjs')) console.log(`${relative(ROOT, file)}\t${(bytes / 1024).toFixed(0)} KiB`)
  console.log(`assets: ${assets.join(', ')}`)
  console.log(`bundle in ${relative(ROOT, out)}`)
}
