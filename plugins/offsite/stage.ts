import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { DB_ENTRY, ENV_ENTRY, MANIFEST_ENTRY, onlineBackup, schemaVersions, sha256File } from '../backups/public.js'
import { type OffsiteManifest, rowCounts } from './manifest.js'
import { offsitePaths } from './paths.js'
import { takeRunLock } from './run-lock.js'

/** Files and bytes of a folder tree (symbolic links not followed). */
function folderSize(dir: string): { files: number; bytes: number } {
  let files = 0
  let bytes = 0
  const stack = [dir]
  while (stack.length) {
    const d = stack.pop() as string
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory()) stack.push(p)
      else if (e.isFile()) {
        files++
        bytes += lstatSync(p).size
      }
    }
  }
  return { files, bytes }
}

export interface Staged {
  /** Relative to the data folder: what restic is given, and the paths inside the snapshot. */
  paths: string[]
  manifest: OffsiteManifest
  remove(): void
}

/**
 * What a snapshot holds, made consistent: SQLite's online backup of the database (never the live
 * file, which may be mid-transaction), hearth.env, and a manifest with schema versions, checksums
 * and row counts, in `<data>/offsite-copy/`; beside it the photos folder when there is one.
 */
export async function stageSnapshot(db: Database.Database, dataDir: string, version: string): Promise<Staged> {
  const p = offsitePaths(dataDir)
  const dir = join(dataDir, p.copyName)
  mkdirSync(p.dir, { recursive: true, mode: 0o700 })
  const unlock = takeRunLock(join(p.dir, 'run.lock'))
  const remove = () => {
    rmSync(dir, { recursive: true, force: true })
    unlock()
  }
  try {
    // A copy left by a run that was killed goes first.
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir, { mode: 0o700 })
    const dbCopy = join(dir, DB_ENTRY)
    await onlineBackup(db, dbCopy)
    const copy = new Database(dbCopy)
    let schema: Record<string, number>
    let rows: Record<string, number>
    try {
      copy.pragma('journal_mode = DELETE')
      schema = schemaVersions(copy)
      rows = rowCounts(copy)
    } finally {
      copy.close()
    }
    const files: OffsiteManifest['files'] = { [DB_ENTRY]: { size: statSync(dbCopy).size, sha256: await sha256File(dbCopy) } }
    const env = join(dataDir, ENV_ENTRY)
    if (existsSync(env)) {
      writeFileSync(join(dir, ENV_ENTRY), readFileSync(env), { mode: 0o600 })
      files[ENV_ENTRY] = { size: statSync(join(dir, ENV_ENTRY)).size, sha256: await sha256File(join(dir, ENV_ENTRY)) }
    }
    const photosDir = join(dataDir, p.photosName)
    const photos = existsSync(photosDir) && statSync(photosDir).isDirectory() ? folderSize(photosDir) : null
    const manifest: OffsiteManifest = {
      format: 'hearth-backup',
      format_version: 1,
      hearth_version: version,
      created_at: new Date().toISOString(),
      schema,
      files,
      rows,
      photos,
    }
    writeFileSync(join(dir, MANIFEST_ENTRY), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 })
    return {
      paths: photos ? [p.copyName, p.photosName] : [p.copyName],
      manifest,
      remove,
    }
  } catch (err) {
    remove()
    throw err
  }
}

/** restic tags: which Hearth and which schema a snapshot holds, readable without restoring it. */
export function snapshotTags(manifest: OffsiteManifest): string[] {
  return ['hearth', `hearth-version=${manifest.hearth_version}`, ...Object.entries(manifest.schema).map(([k, v]) => `schema-${k}=${v}`)]
}
