import { createHash } from 'node:crypto'
import { chmodSync, createReadStream, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createWriteStream } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import Database from 'better-sqlite3'
import { createEncryptStream } from './crypto.js'
import { type BackupManifest, DB_ENTRY, ENV_ENTRY, MANIFEST_ENTRY, schemaVersions } from './manifest.js'
import { tarEnd, tarHeader, tarPadding } from '../../lib/archive/tar.js'

export interface BackupProgress {
  phase: 'database' | 'archive'
  done: number
  total: number
}

export interface CreateBackupOptions {
  /** The source connection (the daemon's own, or the CLI's beside a running daemon). */
  db: Database.Database
  /** hearth.env to include (the secrets); skipped when absent. */
  envFile: string
  destination: string
  version: string
  passphrase?: string
  onProgress?: (p: BackupProgress) => void
}

const PAGES_PER_STEP = 256

/**
 * SQLite's online backup into `file`, in steps so progress can be shown. Another
 * connection writing between steps restarts the copy; when that happens the rest is
 * copied in one step (one read transaction: a consistent snapshot that WAL writers do not block),
 * so a busy daemon cannot keep the backup from finishing.
 */
export async function onlineBackup(db: Database.Database, file: string, onProgress?: (p: BackupProgress) => void): Promise<void> {
  let lastRemaining = Infinity
  const result = await db.backup(file, {
    progress: ({ totalPages, remainingPages }) => {
      onProgress?.({ phase: 'database', done: totalPages - remainingPages, total: totalPages })
      const restarted = remainingPages > lastRemaining
      lastRemaining = remainingPages
      return restarted ? 0x7fffffff : PAGES_PER_STEP
    },
  })
  onProgress?.({ phase: 'database', done: result.totalPages, total: result.totalPages })
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

/** The tar stream: manifest first (so a listing can read it cheaply), then the files. */
async function* tarStream(
  entries: Array<{ name: string; file?: string; body?: Buffer }>,
  total: number,
  onProgress?: (p: BackupProgress) => void,
): AsyncGenerator<Buffer> {
  const mtime = Date.now() / 1000
  let done = 0
  for (const e of entries) {
    const size = e.body ? e.body.length : statSync(e.file as string).size
    yield tarHeader(e.name, size, mtime)
    if (e.body) yield e.body
    else
      for await (const chunk of createReadStream(e.file as string, { highWaterMark: 256 * 1024 })) {
        done += (chunk as Buffer).length
        onProgress?.({ phase: 'archive', done, total })
        yield chunk as Buffer
      }
    yield tarPadding(size)
  }
  yield tarEnd()
  onProgress?.({ phase: 'archive', done: total, total })
}

/**
 * Writes one archive (tar, gzip, optionally encrypted) with the database, hearth.env and a
 * manifest of versions and checksums. Written to `<destination>.partial` and renamed at the
 * end: a listing or a restore never sees half an archive. Mode 0600: it holds the secrets.
 */
export async function createBackup(opts: CreateBackupOptions): Promise<{ manifest: BackupManifest; bytes: number; path: string }> {
  const destination = opts.destination
  const staging = mkdtempSync(join(dirname(destination), '.hearth-backup-'))
  try {
    const dbCopy = join(staging, DB_ENTRY)
    await onlineBackup(opts.db, dbCopy, opts.onProgress)
    const copy = new Database(dbCopy)
    let schema: Record<string, number>
    try {
      // One self-contained file in the archive (no -wal beside it); the daemon turns WAL back on when it opens it.
      copy.pragma('journal_mode = DELETE')
      schema = schemaVersions(copy)
    } finally {
      copy.close()
    }
    const files: BackupManifest['files'] = { [DB_ENTRY]: { size: statSync(dbCopy).size, sha256: await sha256File(dbCopy) } }
    const entries: Array<{ name: string; file?: string; body?: Buffer }> = [{ name: DB_ENTRY, file: dbCopy }]
    if (existsSync(opts.envFile)) {
      const envCopy = join(staging, ENV_ENTRY)
      writeFileSync(envCopy, readFileSync(opts.envFile), { mode: 0o600 })
      files[ENV_ENTRY] = { size: statSync(envCopy).size, sha256: await sha256File(envCopy) }
      entries.push({ name: ENV_ENTRY, file: envCopy })
    }
    const manifest: BackupManifest = {
      format: 'hearth-backup',
      format_version: 1,
      hearth_version: opts.version,
      created_at: new Date().toISOString(),
      schema,
      files,
    }
    entries.unshift({ name: MANIFEST_ENTRY, body: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`) })
    const total = Object.values(files).reduce((n, f) => n + f.size, 0)
    const partial = join(dirname(destination), `.${basename(destination)}.partial`)
    const stages: Array<NodeJS.ReadableStream | NodeJS.WritableStream> = [tarStream(entries, total, opts.onProgress) as never, createGzip()]
    if (opts.passphrase) stages.push(createEncryptStream(opts.passphrase))
    stages.push(createWriteStream(partial, { mode: 0o600 }))
    await (pipeline as (...s: unknown[]) => Promise<void>)(...stages)
    chmodSync(partial, 0o600)
    renameSync(partial, destination)
    return { manifest, bytes: statSync(destination).size, path: destination }
  } finally {
    rmSync(staging, { recursive: true, force: true })
    rmSync(join(dirname(destination), `.${basename(destination)}.partial`), { force: true })
  }
}
