// The libraries the household page loads, copied from node_modules beside its own files at build time
// (scripts/copy-assets.mjs for dist/, scripts/bundle.mjs for the bundle): the page is served from the
// appliance alone, never from a CDN. Each is a single file the browser runs as it ships.
import { cpSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** Where the page's files sit, relative to the repository (sources) and to dist/ or the bundle (built). */
export const PAGE_ASSETS = 'core/household-page/assets'

/** vendor/<name> ← node_modules/<path> */
export const VENDORED = {
  // The QR code of the authenticator-app set-up (an ES module, loaded on demand).
  'qrcode.mjs': 'qrcode-generator/dist/qrcode.mjs',
  // Passkey registration and sign-in (a UMD file: as a module it sets globalThis.SimpleWebAuthnBrowser).
  'webauthn.js': '@simplewebauthn/browser/dist/bundle/index.umd.min.js',
}

/** Copies the page's own files and the vendored libraries into `outDir`/core/household-page/assets. */
export function copyPageAssets(outDir) {
  const target = join(outDir, PAGE_ASSETS)
  cpSync(join(ROOT, PAGE_ASSETS), target, { recursive: true })
  mkdirSync(join(target, 'vendor'), { recursive: true })
  for (const [name, from] of Object.entries(VENDORED)) cpSync(join(ROOT, 'node_modules', from), join(target, 'vendor', name))
}
