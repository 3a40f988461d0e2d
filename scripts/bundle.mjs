// `npm run bundle`: the daemon as one ES module, dist/bundle/hearth.mjs, built
// from the compiled dist/ (run after tsc and copy-assets). Layout and reasons:
// docs/performance.md, "The bundle".
//  - Built-in plugins: a static import list generated here from plugins/*/index.ts,
//    so the bundle holds exactly the folder's plugins (no directory listing at start).
//  - Each module's import.meta.url becomes the URL its file would have inside
//    dist/bundle/ (dist/core/services.js → dist/bundle/core/services.js), and the
//    files the code reads that way (SQL migrations) are copied there.
//  - Packages with native code or that read their own files stay external,
//    resolved from node_modules at run time.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { build } from 'esbuild'

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..')
const DIST = join(ROOT, 'dist')
const OUT = join(DIST, 'bundle')
export const EXTERNAL = ['better-sqlite3', 'sqlite-vec', '@fastify/swagger-ui']

const plugins = readdirSync(join(ROOT, 'plugins'))
  .filter((name) => statSync(join(ROOT, 'plugins', name)).isDirectory() && existsSync(join(DIST, 'plugins', name, 'index.js')))
  .sort()
const entry = [
  "import { runDaemon } from './core/daemon.js'",
  ...plugins.map((name, i) => `import plugin${i} from './plugins/${name}/index.js'`),
  `await runDaemon({ plugins: [${plugins.map((_, i) => `plugin${i}`).join(', ')}] })`,
].join('\n')

const rewriteImportMetaUrl = {
  name: 'import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(`${DIST}/`) || args.path.startsWith(`${OUT}/`)) return undefined
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('import.meta.url')) return undefined
      const beside = `./${relative(DIST, args.path)}`
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(beside)}, import.meta.url).href`), loader: 'js' }
    })
  },
}

rmSync(OUT, { recursive: true, force: true })
mkdirSync(OUT, { recursive: true })
const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version
// Written into dist/ so its relative imports resolve as the compiled modules' do.
const entryFile = join(DIST, 'bundle-entry.js')
writeFileSync(entryFile, `${entry}\n`)
const result = await build({
  entryPoints: { hearth: entryFile },
  bundle: true,
  // What the code imports dynamically (acme-client with node-forge and axios, jose...) goes
  // to its own chunk, read only when first used: the start parses a third less code.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir: OUT,
  external: EXTERNAL,
  define: { HEARTH_BUNDLED_VERSION: JSON.stringify(version) },
  // CommonJS dependencies inside an ES module still call require() for Node's built-ins.
  banner: { js: "import { createRequire as __hearthRequire } from 'node:module'; const require = __hearthRequire(import.meta.url);" },
  plugins: [rewriteImportMetaUrl],
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
})
writeFileSync(join(OUT, 'meta.json'), JSON.stringify(result.metafile))

// The files read through import.meta.url: every migrations folder, at its place beside the bundle.
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (!statSync(path).isDirectory() || path === OUT || name === 'test') continue
    if (name === 'migrations') cpSync(path, join(OUT, relative(DIST, path)), { recursive: true })
    else walk(path)
  }
}
for (const root of ['core', 'plugins']) walk(join(DIST, root))
rmSync(entryFile)
const mb = (file) => (statSync(file).size / 1024 / 1024).toFixed(1)
const chunks = readdirSync(join(OUT, 'chunks'))
console.log(
  `dist/bundle/hearth.mjs: ${mb(join(OUT, 'hearth.mjs'))} MB + ${chunks.length} lazy chunks; ${plugins.length} built-in plugins (${plugins.join(', ')})`,
)
