/**
 * Writes the OpenAPI document the daemon serves at /api/v1/openapi.json, from
 * a daemon built in a throwaway data folder (every built-in plugin loaded, no
 * port opened): `node dist/scripts/openapi/document.js [FILE]` (default stdout).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../../core/app.js'

export async function openApiDocument(): Promise<object> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-openapi-'))
  // A closed port for Caddy's admin API: building the document must not touch the machine's proxy.
  const app = await buildApp({ env: { HEARTH_DATA_DIR: dataDir, HEARTH_CADDY_ADMIN: 'http://127.0.0.1:1' }, logger: false })
  try {
    return (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json()
  } finally {
    await app.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = `${JSON.stringify(await openApiDocument(), null, 2)}\n`
  if (process.argv[2]) writeFileSync(process.argv[2], text)
  else process.stdout.write(text)
}
