import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { BackupRefused, DB_ENTRY, ENV_ENTRY, MANIFEST_ENTRY, sha256File, verifyUnpacked } from '../backups/public.js'
import { type OffsiteManifest, rowCounts, rowDifferences } from './manifest.js'

export interface VerifiedCopy {
  manifest: OffsiteManifest
  schema: Record<string, number>
  unknownPlugins: string[]
}

/**
 * The checks a restored snapshot passes before anyone relies on it (a drill) or before it replaces
 * the data folder (a restore): the local restore's (each file's SHA-256 against the manifest,
 * `integrity_check`, no schema newer than `known`), and every table's row count as the manifest says.
 * `copyDir` is the snapshot's `offsite-copy` folder. Throws BackupRefused with the reason.
 */
export async function verifyRestoredCopy(copyDir: string, known: Record<string, number>): Promise<VerifiedCopy> {
  const manifestFile = join(copyDir, MANIFEST_ENTRY)
  if (!existsSync(manifestFile)) throw new BackupRefused('the snapshot holds no manifest.json: it was not made by Hearth')
  let manifest: OffsiteManifest
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as OffsiteManifest
  } catch (err) {
    throw new BackupRefused(`damaged manifest.json: ${(err as Error).message}`)
  }
  if (manifest?.format !== 'hearth-backup' || typeof manifest.rows !== 'object' || !manifest.rows)
    throw new BackupRefused('manifest.json is not an off-site snapshot manifest')
  const hashes: Record<string, { size: number; sha256: string }> = {}
  for (const name of [DB_ENTRY, ENV_ENTRY]) {
    const file = join(copyDir, name)
    if (existsSync(file)) hashes[name] = { size: 0, sha256: await sha256File(file) }
  }
  const { schema, unknownPlugins } = verifyUnpacked(copyDir, { manifest, hashes }, known)
  const db = new Database(join(copyDir, DB_ENTRY), { readonly: true, fileMustExist: true })
  let differences: string[]
  try {
    differences = rowDifferences(manifest.rows, rowCounts(db))
  } finally {
    db.close()
  }
  if (differences.length) throw new BackupRefused(`row counts differ from the manifest: ${differences.slice(0, 5).join('; ')}`)
  return { manifest, schema, unknownPlugins }
}
