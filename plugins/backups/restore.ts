import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  lchownSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { ASIDE_INFIX, RESTORE_MARKER } from '../../core/plugin-api.js'
import { type ArchiveKind, unpackBackup, verifyUnpacked } from './extract.js'
import { type BackupManifest, DB_ENTRY, ENV_ENTRY } from './manifest.js'

/** Files of the data folder the archive replaces; everything else is carried over from the previous folder. */
const REPLACED = new Set([DB_ENTRY, `${DB_ENTRY}-wal`, `${DB_ENTRY}-shm`, ENV_ENTRY, 'hearth.pid', RESTORE_MARKER])

export interface RestoreOptions {
  file: string
  dataDir: string
  /** Highest migration this code has per plugin: a backup with a newer one is refused. */
  known: Record<string, number>
  passphrase?: string
  /** Secrets for a backup that has none (the previous release's bare database); default: the current hearth.env. */
  envFile?: string
  onBytes?: (n: number) => void
  now?: () => Date
}

export interface RestoreResult {
  kind: ArchiveKind
  manifest: BackupManifest | null
  schema: Record<string, number>
  unknownPlugins: string[]
  /** Where the previous data folder now is (null when there was none). */
  aside: string | null
  /** Where hearth.env came from. */
  secrets: 'archive' | 'given' | 'kept' | 'none'
}

function chownTree(dir: string, uid: number, gid: number): void {
  chownSync(dir, uid, gid)
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) chownTree(path, uid, gid)
    else lchownSync(path, uid, gid)
  }
}

const stamp = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')

/**
 * Restores into `dataDir`. Everything is unpacked and verified in a sibling folder first;
 * only then is the current folder renamed aside (`<data>.before-restore-<time>`) and the new
 * one renamed in, so a failure at any step leaves the current data as it was. The folder set
 * aside is removed by the daemon once it has started on the restored one (HEARTH_RESTORE_KEEP).
 * The caller makes sure the daemon is not running.
 */
export async function restoreBackup(opts: RestoreOptions): Promise<RestoreResult> {
  const dataDir = opts.dataDir.replace(/\/+$/, '')
  mkdirSync(dirname(dataDir), { recursive: true })
  const staging = mkdtempSync(join(dirname(dataDir), `.${basename(dataDir)}.restore-`))
  try {
    const unpacked = await unpackBackup(opts.file, staging, { passphrase: opts.passphrase, onBytes: opts.onBytes })
    const { schema, unknownPlugins } = verifyUnpacked(staging, unpacked, opts.known)

    const installed = installRestored({ staging, dataDir, source: opts.file, schema, envFile: opts.envFile, now: opts.now })
    return { kind: unpacked.kind, manifest: unpacked.manifest, schema, unknownPlugins, ...installed }
  } finally {
    // Gone already when it became the data folder.
    rmSync(staging, { recursive: true, force: true })
  }
}

export interface InstallOptions {
  /** A verified folder beside the data folder holding what replaces it. */
  staging: string
  dataDir: string
  /** What it came from (a file, a snapshot), recorded in restored-from.json. */
  source: string
  schema: Record<string, number>
  envFile?: string
  /** Further names of the data folder the restored copy replaces instead of carrying over (a photos folder). */
  replaces?: string[]
  now?: () => Date
}

/**
 * Puts a verified staging folder in place of the data folder: hearth.env from the copy (else the one
 * given, else the current one), what the copy does not replace carried over from the current
 * folder, the current folder renamed `<data>.before-restore-<time>`, the staging folder renamed in.
 * A failed rename puts the old folder back. The caller makes sure the daemon is not running.
 */
export function installRestored(opts: InstallOptions): { aside: string | null; secrets: RestoreResult['secrets'] } {
  const { staging, dataDir } = opts
  let secrets: RestoreResult['secrets'] = existsSync(join(staging, ENV_ENTRY)) ? 'archive' : 'none'
  const currentEnv = join(dataDir, ENV_ENTRY)
  if (secrets === 'none' && opts.envFile) {
    copyFileSync(opts.envFile, join(staging, ENV_ENTRY))
    secrets = 'given'
  } else if (secrets === 'none' && existsSync(currentEnv)) {
    copyFileSync(currentEnv, join(staging, ENV_ENTRY))
    secrets = 'kept'
  }
  if (existsSync(join(staging, ENV_ENTRY))) chmodSync(join(staging, ENV_ENTRY), 0o600)

  const owner = existsSync(dataDir) ? statSync(dataDir) : null
  const aside = owner ? `${dataDir}${ASIDE_INFIX}${stamp((opts.now ?? (() => new Date()))())}` : null
  // What the archive does not hold (other files and folders) comes along, copied: the old folder stays whole.
  if (owner)
    for (const name of readdirSync(dataDir)) {
      if (!REPLACED.has(name) && !opts.replaces?.includes(name))
        cpSync(join(dataDir, name), join(staging, name), { recursive: true, preserveTimestamps: true })
    }
  writeFileSync(
    join(staging, RESTORE_MARKER),
    `${JSON.stringify({ file: opts.source, restored_at: new Date().toISOString(), previous: aside, schema: opts.schema }, null, 2)}\n`,
    { mode: 0o600 },
  )
  chmodSync(staging, 0o700)
  // Run as root (the parent of /var/lib/hearth is root's), the restored files must stay the daemon user's.
  if (owner && process.getuid?.() === 0 && owner.uid !== 0) chownTree(staging, owner.uid, owner.gid)
  // Nothing has touched the data folder until here: every check and copy failed safe.
  if (aside) renameSync(dataDir, aside)
  try {
    renameSync(staging, dataDir)
  } catch (err) {
    if (aside) renameSync(aside, dataDir)
    throw err
  }
  return { aside, secrets }
}
