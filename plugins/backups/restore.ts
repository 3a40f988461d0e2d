import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { ASIDE_INFIX, RESTORE_MARKER } from '../../core/daemon-state.js'
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

    let secrets: RestoreResult['secrets'] = unpacked.hashes[ENV_ENTRY] ? 'archive' : 'none'
    const currentEnv = join(dataDir, ENV_ENTRY)
    if (secrets === 'none' && opts.envFile) {
      copyFileSync(opts.envFile, join(staging, ENV_ENTRY))
      secrets = 'given'
    } else if (secrets === 'none' && existsSync(currentEnv)) {
      copyFileSync(currentEnv, join(staging, ENV_ENTRY))
      secrets = 'kept'
    }
    if (existsSync(join(staging, ENV_ENTRY))) chmodSync(join(staging, ENV_ENTRY), 0o600)

    let aside: string | null = null
    if (existsSync(dataDir)) {
      // What the archive does not hold (Caddy's state, files...) comes along, copied: the old folder stays whole.
      for (const name of readdirSync(dataDir)) {
        if (!REPLACED.has(name)) cpSync(join(dataDir, name), join(staging, name), { recursive: true, preserveTimestamps: true })
      }
      aside = `${dataDir}${ASIDE_INFIX}${stamp((opts.now ?? (() => new Date()))())}`
      renameSync(dataDir, aside)
    }
    writeFileSync(
      join(staging, RESTORE_MARKER),
      `${JSON.stringify({ file: opts.file, restored_at: new Date().toISOString(), previous: aside, schema }, null, 2)}\n`,
      { mode: 0o600 },
    )
    chmodSync(staging, 0o700)
    try {
      renameSync(staging, dataDir)
    } catch (err) {
      if (aside) renameSync(aside, dataDir)
      throw err
    }
    return { kind: unpacked.kind, manifest: unpacked.manifest, schema, unknownPlugins, aside, secrets }
  } finally {
    // Gone already when it became the data folder.
    rmSync(staging, { recursive: true, force: true })
  }
}
