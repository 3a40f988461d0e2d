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
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = join(ROOT, 'dist', 'bundle')

/** Not inlined: native addons, packages that load files next to their own sources, optional imports. */
export const EXTERNALS = ['better-sqlite3', 'sqlite-vec', 'sharp', '@fastify/swagger-ui']

/**
 * CommonJS modules that a dependency requires when the daemon starts but that run only on a rare request or
 * never: each is bundled on its own as lazy/<name>.cjs beside the bundle, and the modules named in `from`
 * get a stand-in (scripts/lazy-module.ts) that requires that file on the module's first use. The daemon
 * then neither holds nor compiles their source at start (issue 11, docs/performance.md "Start and idle
 * memory (fourth pass)"). Only for modules their requirers call, construct or read properties of at
 * use time: a stand-in is not the module object. And only for modules that share no state with the rest of
 * the bundle: each lazy file carries its own copy of what it requires (prom-client's histogram, summary and
 * default metrics are not here for that reason: their copy of the registry would not be prom-client's).
 * prom-client as a whole is imported on the first scrape instead (core/metrics.ts): esbuild's splitting gives
 * that dynamic import a chunk of its own, with one copy of everything prom-client requires.
 */
export const LAZY = [
  // @fastify/swagger's YAML document: /api/v1/docs/yaml only (227 KB).
  { id: 'yaml', from: '@fastify/swagger' },
  // Fastify's inject (it already requires it on the first call): the MCP plugin and the docs UI (60 KB).
  { id: 'light-my-request', from: 'fastify' },
  // prom-client's exemplars, which the daemon does not enable (59 KB).
  { id: '@opentelemetry/api', from: 'prom-client' },
  // Parsing a multipart body: a photo upload or an import, not the start (49 KB).
  { id: '@fastify/busboy', from: '@fastify/multipart' },
  // @fastify/swagger's Swagger 2.0 generator and static mode: the daemon's document is OpenAPI 3, generated.
  { id: '../spec/swagger', from: '@fastify/swagger' },
  { id: './lib/mode/static', from: '@fastify/swagger' },
  // Resolving $refs when the OpenAPI document is built, on its first request (44 KB, with `debug`).
  { id: 'json-schema-resolver', from: '@fastify/swagger' },
  // @fastify/websocket's injectWS (tests), with readable-stream (77 KB).
  { id: 'duplexify', from: '@fastify/websocket' },
  // pino's log transports in a worker thread: the daemon logs to stdout (19 KB).
  { id: 'thread-stream', from: 'pino' },
  // Reading and writing archives (records' import and export of zip and tar.gz files, 25 KB).
  { id: 'fflate', from: 'plugins/records/' },
  // Ajv, for the first request whose body, query or parameters are validated or whose response schema has
  // an anyOf (fast-json-stringify's validator): never before. One file for all its requirers, so that they
  // share one Ajv as they do in the bundle (ajv-formats' generated code must come from that Ajv's codegen).
  // About 300 KB with ajv-formats and fast-uri.
  { id: 'ajv', from: 'core/', group: 'ajv' },
  { id: 'ajv-formats', from: 'core/', group: 'ajv' },
  { id: './lib/validator', from: 'fast-json-stringify', group: 'ajv', props: ['escapeRefForAjv'] },
  { id: './lib/validator-compiler', from: '@fastify/ajv-compiler', group: 'ajv' },
  { id: './standalone', from: '@fastify/ajv-compiler', group: 'ajv' },
  { id: './lib/standalone', from: 'fast-json-stringify', group: 'ajv' },
  // JTD schemas (serializer and validator): the daemon's are JSON Schema (TypeBox).
  { id: './lib/serializer-compiler', from: '@fastify/ajv-compiler', group: 'ajv' },
  // Time-zone offsets of events in a zone other than UTC, and checking a zone name (220 KB). Imported by our
  // own modules: the stand-in exports each of the package's classes and functions by name.
  { id: 'luxon', from: 'plugins/records/' },
]

/** lazy/yaml.cjs, lazy/fastify-busboy.cjs, lazy/prom-client-lib-pushgateway.cjs */
const lazyName = ({ id, from }) =>
  `lazy/${(id.startsWith('.') ? `${from}/${id}` : id).replace(/[^a-zA-Z0-9]+/g, '-').replace(/^-|-$/g, '')}.cjs`

/** Replaces each LAZY module, where its requirer requires it, by the stand-in; collects what to bundle apart. */
function lazyModules(found) {
  const helper = join(ROOT, 'scripts', 'lazy-module.ts')
  const owner = (path) => /.*node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(path)?.[1]?.replace(/\\/g, '/')
  const requiredBy = (importer, from) =>
    from.endsWith('/') ? relative(ROOT, importer).split(sep).join('/').startsWith(from) : owner(importer) === from
  return {
    name: 'hearth-lazy',
    setup(b) {
      b.onResolve({ filter: /./ }, (args) => {
        if (args.namespace !== 'file' || (args.kind !== 'require-call' && args.kind !== 'import-statement')) return undefined
        const entry = LAZY.find((l) => l.id === args.path && requiredBy(args.importer, l.from))
        if (!entry) return undefined
        const path = createRequire(args.importer).resolve(args.path)
        // A group's modules share one file, which exports each of them by key.
        const file = entry.group ? `lazy/${entry.group}.cjs` : lazyName(entry)
        const key = entry.group ? `${entry.from}:${entry.id}` : undefined
        // Two installed copies of a listed package (one nested in a requirer's node_modules) would otherwise
        // be unified into whichever resolved last.
        const known = entry.group ? found.get(file)?.[key] : found.get(file)
        if (known && known !== path) throw new Error(`LAZY ${entry.id} (from ${entry.from}) resolves to two files: ${known}, ${path}`)
        found.set(file, entry.group ? { ...found.get(file), [key]: path } : path)
        // One stand-in module per module and kind: a CommonJS requirer gets the module, an ES importer its names.
        const esm = args.kind === 'import-statement'
        const standIn = `${file}${key ? `#${key}` : ''}${esm ? '?esm' : ''}`
        return { path: standIn, namespace: 'hearth-lazy', pluginData: { esm, file, key, path, props: entry.props ?? [] } }
      })
      b.onLoad({ filter: /./, namespace: 'hearth-lazy' }, (args) => {
        const { esm, file, key, path, props } = args.pluginData
        const load = `require(${JSON.stringify(`./${file}`)})${key ? `[${JSON.stringify(key)}]` : ''}`
        if (!esm)
          return {
            contents: `const { lazyModule } = require(${JSON.stringify(helper)})\nmodule.exports = lazyModule(() => ${load}, ${JSON.stringify(props)})\n`,
            loader: 'js',
            resolveDir: ROOT,
          }
        // An ES module importing names: one stand-in per class or function the package exports (an import of
        // anything else fails the build: "No matching export"); its default import is the module itself.
        const mod = createRequire(import.meta.url)(path)
        const names = Object.keys(mod).filter((k) => typeof mod[k] === 'function' && k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k))
        const contents = [
          `import { lazyModule } from ${JSON.stringify(helper)}`,
          // require caches the module: each stand-in below loads it once on its own first use.
          `const real = () => ${load}`,
          ...names.map((k) => `export const ${k} = lazyModule(() => real().${k})`),
          'export default lazyModule(real)',
        ].join('\n')
        return { contents, loader: 'js', resolveDir: ROOT }
      })
      b.onResolve({ filter: /^\.\/lazy\//, namespace: 'hearth-lazy' }, (args) => ({ path: args.path, external: true }))
    },
  }
}

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
  const lazy = new Map()
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
    plugins: [lazyModules(lazy), hearthSources(assets)],
    banner: { js: BANNER },
    ...OUTPUT,
    // No keepNames: it wraps every function in `__name(fn, "...")`, a defineProperty each time a closure
    // is created, per request in Fastify's and our hot paths (by id: 29-31 -> 23-24 us of CPU a request,
    // docs/performance.md). Names in stack traces stay (V8 infers them); a renamed duplicate shows as `parse2`.
    keepNames: false,
    metafile: true,
    logLevel: 'warning',
  })
  for (const [file, path] of lazy) {
    // Each on its own: a lazy module's dependencies are bundled into its file again (they are not loaded at start).
    // A group's file requires each of its modules once and exports them by key.
    const input =
      typeof path === 'string'
        ? { entryPoints: [path] }
        : {
            stdin: {
              contents: `module.exports = {\n${Object.entries(path)
                .map(([k, p]) => `  ${JSON.stringify(k)}: require(${JSON.stringify(p)}),`)
                .join('\n')}\n}\n`,
              resolveDir: ROOT,
              loader: 'js',
            },
          }
    await build({
      ...input,
      outfile: join(OUT, file),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node24',
      external: EXTERNALS,
      ...OUTPUT,
      logLevel: 'warning',
    })
    asciiOnly(join(OUT, file))
  }
  for (const file of Object.keys(result.metafile.outputs)) if (file.endsWith('.mjs')) asciiOnly(join(ROOT, file))
  for (const asset of assets) {
    if (asset === 'package.json') continue
    cpSync(join(ROOT, asset), join(OUT, asset), { recursive: true })
  }
  writeFileSync(
    join(OUT, 'package.json'),
    `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'module', exports: { './plugin-api': './plugin-api.mjs' } }, null, 2)}\n`,
  )
  writeFileSync(join(OUT, 'externals.json'), `${JSON.stringify(EXTERNALS, null, 2)}\n`)
  return {
    out: OUT,
    assets: [...assets].sort(),
    lazy: [...lazy.keys()].sort(),
    outputs: result.metafile.outputs,
    inputs: result.metafile.inputs,
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { out, assets, lazy, outputs } = await bundle()
  for (const [file, { bytes }] of Object.entries(outputs))
    if (file.endsWith('.mjs')) console.log(`${relative(ROOT, file)}\t${(bytes / 1024).toFixed(0)} KiB`)
  console.log(`assets: ${assets.join(', ')}`)
  console.log(`loaded on first use: ${lazy.join(', ')}`)
  console.log(`bundle in ${relative(ROOT, out)}`)
}
