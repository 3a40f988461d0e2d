// Copies the non-TypeScript files the compiled daemon reads at run time
// (SQL migrations, the household page with its vendored libraries) from the source tree into dist/,
// beside their modules.
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { copyPageAssets } from './page-assets.mjs'

const roots = ['core', 'plugins', 'drivers', 'test']
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (!statSync(path).isDirectory() || name === 'node_modules') continue
    if (name === 'migrations') {
      // Replaced, not merged: a migration renamed in the sources must not stay behind under its old
      // number, where the runner would find one version twice.
      rmSync(join('dist', path), { recursive: true, force: true })
      cpSync(path, join('dist', path), { recursive: true })
    } else walk(path)
  }
}
for (const root of roots) if (existsSync(root)) walk(root)
copyPageAssets('dist')
