import { createHash, type Hash } from 'node:crypto'
import { closeSync, copyFileSync, createReadStream, openSync, readSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import Database from 'better-sqlite3'
import { createDecryptStream, MAGIC } from './crypto.js'
import { type BackupManifest, compareSchemas, DB_ENTRY, ENTRIES, MANIFEST_ENTRY, parseManifest, schemaVersions } from './manifest.js'
import { readTarStream, type TarEntry } from '../../lib/archive/tar.js'

/** A backup that must not be restored: damaged, wrong passphrase, or from a newer schema. */
export class BackupRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BackupRefused'
  }
}

export type ArchiveKind = 'archive' | 'encrypted' | 'sqlite'

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0')

/** What a file holds, from its first bytes. */
export function archiveKind(file: string): ArchiveKind | null {
  const fd = openSync(file, 'r')
  try {
    const head = Buffer.alloc(16)
    const n = readSync(fd, head, 0, 16, 0)
    if (n >= 8 && head.subarray(0, 8).equals(MAGIC)) return 'encrypted'
    if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'archive'
    if (n === 16 && head.equals(SQLITE_MAGIC)) return 'sqlite'
    return null
  } finally {
    closeSync(fd)
  }
}

const MAX_MANIFEST = 1024 * 1024

/** Counts bytes read from the archive file, for the progress bar. */
function counter(onBytes: (n: number) => void): Transform {
  let n = 0
  return new Transform({
    transform(chunk: Buffer, _e, done) {
      n += chunk.length
      onBytes(n)
      done(null, chunk)
    },
  })
}

/**
 * Unpacks an archive into `dir` (manifest.json, hearth.db, hearth.env), hashing as it
 * writes. Names outside the three, duplicates, and files the manifest does not announce
 * are refused. The previous release's backups (a bare SQLite file from `hearth backup`)
 * are accepted too: the file becomes hearth.db and there is no manifest.
 */
export async function unpackBackup(
  file: string,
  dir: string,
  opts: { passphrase?: string; onBytes?: (n: number) => void } = {},
): Promise<{ kind: ArchiveKind; manifest: BackupManifest | null; hashes: Record<string, { size: number; sha256: string }> }> {
  const kind = archiveKind(file)
  if (!kind) throw new BackupRefused(`${file} is not a Hearth backup (neither an archive nor a SQLite database)`)
  if (kind === 'sqlite') {
    copyFileSync(file, join(dir, DB_ENTRY))
    return { kind, manifest: null, hashes: {} }
  }
  if (kind === 'encrypted' && !opts.passphrase) throw new BackupRefused('this backup is encrypted: give its passphrase')

  let manifest: BackupManifest | null = null
  // Kept as bytes until the manifest ends: a character may be split between two chunks.
  let manifestParts: Uint8Array[] = []
  const hashes: Record<string, { size: number; sha256: string }> = {}
  let current: { name: string; fd: number | null; hash: Hash; size: number } | null = null

  const sink = {
    start({ name, size, type }: TarEntry) {
      if (type !== '0') throw new BackupRefused('unexpected archive content: only regular files are allowed')
      if (!ENTRIES.has(name)) throw new BackupRefused(`unexpected file in the archive: ${JSON.stringify(name)}`)
      if (hashes[name] || (name === MANIFEST_ENTRY && manifest)) throw new BackupRefused(`${name} appears twice in the archive`)
      if (name === MANIFEST_ENTRY) {
        if (size > MAX_MANIFEST) throw new BackupRefused('manifest.json is too large')
      } else {
        if (!manifest) throw new BackupRefused('the archive does not start with manifest.json')
        const announced = manifest.files[name]
        if (!announced || announced.size !== size) throw new BackupRefused(`${name} is not the file the manifest announces`)
      }
      current = { name, fd: name === MANIFEST_ENTRY ? null : openSync(join(dir, name), 'w', 0o600), hash: createHash('sha256'), size }
    },
    data(chunk: Uint8Array) {
      const c = current as NonNullable<typeof current>
      if (c.fd === null) manifestParts.push(chunk.slice())
      else writeSync(c.fd, chunk)
      c.hash.update(chunk)
    },
    end() {
      const c = current as NonNullable<typeof current>
      if (c.fd === null) {
        try {
          manifest = parseManifest(Buffer.concat(manifestParts).toString('utf8'))
          manifestParts = []
        } catch (err) {
          throw new BackupRefused((err as Error).message)
        }
      } else {
        closeSync(c.fd)
        hashes[c.name] = { size: c.size, sha256: c.hash.digest('hex') }
      }
      current = null
    },
  }

  const stages: unknown[] = [createReadStream(file)]
  if (opts.onBytes) stages.push(counter(opts.onBytes))
  if (kind === 'encrypted') stages.push(createDecryptStream(opts.passphrase as string))
  stages.push(createGunzip(), (source: AsyncIterable<Buffer>) => readTarStream(source, sink))
  try {
    // pipeline: a failure at any stage (bad tag, bad gzip, refused entry) ends the whole read.
    await (pipeline as (...s: unknown[]) => Promise<void>)(...stages)
  } catch (err) {
    if (err instanceof BackupRefused) throw err
    const e = err as Error
    throw new BackupRefused(e.name === 'WrongPassphraseError' ? e.message : `cannot read the archive: ${e.message}`)
  } finally {
    const c = current as { fd: number | null } | null
    if (c?.fd != null) closeSync(c.fd)
  }
  return { kind, manifest, hashes }
}

/**
 * Everything restore checks before touching the data folder: the checksums of the
 * manifest, SQLite's integrity_check, and that no plugin's schema is newer than this code's.
 */
export function verifyUnpacked(
  dir: string,
  unpacked: { manifest: BackupManifest | null; hashes: Record<string, { size: number; sha256: string }> },
  known: Record<string, number>,
): { schema: Record<string, number>; unknownPlugins: string[] } {
  if (unpacked.manifest) {
    for (const [name, want] of Object.entries(unpacked.manifest.files)) {
      const got = unpacked.hashes[name]
      if (!got) throw new BackupRefused(`${name} is missing from the archive`)
      if (got.sha256 !== want.sha256) throw new BackupRefused(`${name} does not match its checksum in the manifest`)
    }
  }
  let db: Database.Database
  try {
    db = new Database(join(dir, DB_ENTRY), { fileMustExist: true })
  } catch (err) {
    throw new BackupRefused(`the database in the backup cannot be opened: ${(err as Error).message}`)
  }
  try {
    let rows: Array<{ integrity_check: string }>
    try {
      rows = db.pragma('integrity_check') as Array<{ integrity_check: string }>
    } catch (err) {
      throw new BackupRefused(`integrity_check failed: ${(err as Error).message}`)
    }
    if (rows.length !== 1 || rows[0]?.integrity_check !== 'ok')
      throw new BackupRefused(
        `integrity_check: ${rows
          .map((r) => r.integrity_check)
          .slice(0, 5)
          .join('; ')}`,
      )
    const schema = schemaVersions(db)
    const { newer, unknown } = compareSchemas(schema, known)
    if (newer.length)
      throw new BackupRefused(
        `the backup's schema is newer than this Hearth knows (${newer.map((n) => `${n.plugin} ${n.backup} > ${n.known}`).join(', ')}): upgrade Hearth first`,
      )
    // A journal mode of the copy other than WAL is fine: the daemon sets WAL when it opens the file.
    return { schema, unknownPlugins: unknown }
  } finally {
    db.close()
  }
}
