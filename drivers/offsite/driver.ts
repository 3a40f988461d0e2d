import type { DriverInstance } from '../../core/plugin-api.js'

/** One step of a long operation, as the engine reports it. */
export interface OffsiteProgress {
  operation: 'backup' | 'restore' | 'check'
  /** 0 to 1. */
  fraction: number
  bytes_done: number
  bytes_total: number
  files_done: number
  files_total: number
}

export interface OffsiteSnapshot {
  id: string
  short_id: string
  time: string
  tags: string[]
}

export interface OffsiteBackupSummary {
  snapshot_id: string
  files_new: number
  files_changed: number
  /** Bytes the repository grew by (after deduplication and compression): what was sent. */
  bytes_added: number
  bytes_processed: number
}

/** How many snapshots to keep per period, newest first (`daily=7,weekly=4,monthly=12`). */
export type OffsiteKeep = Partial<Record<'last' | 'hourly' | 'daily' | 'weekly' | 'monthly' | 'yearly', number>>

export interface OffsiteCheckResult {
  ok: boolean
  /** What the engine found wrong, secrets and URL credentials removed. */
  errors: string[]
}

export interface OffsiteCall {
  onProgress?: (p: OffsiteProgress) => void
  signal?: AbortSignal
}

/**
 * The `offsite` HAL kind: an engine keeping encrypted, deduplicated snapshots of a folder in a
 * repository elsewhere. The repository, its password and any key come from the driver's settings;
 * no method answers or throws them.
 */
export interface OffsiteDriver extends DriverInstance {
  /** Creates the repository when nothing is there; 'exists' when this password opens one; throws otherwise (someone else's). */
  init(call?: OffsiteCall): Promise<'created' | 'exists'>
  /** A snapshot of `paths` (relative to `cwd`, kept relative in the snapshot). */
  backup(opts: { cwd: string; paths: string[]; tags: string[] }, call?: OffsiteCall): Promise<OffsiteBackupSummary>
  snapshots(opts?: { tag?: string }, call?: OffsiteCall): Promise<OffsiteSnapshot[]>
  /** Removes snapshots beyond `keep` and the data only they held. */
  forget(keep: OffsiteKeep, opts: { tag: string }, call?: OffsiteCall): Promise<{ removed: number }>
  /** The repository's structure, and `readData` percent of its data read back and verified. */
  check(opts: { readDataPercent: number }, call?: OffsiteCall): Promise<OffsiteCheckResult>
  /** Restores a snapshot (an id, or 'latest') into `target`, which must be empty or absent. */
  /** `snapshot`: an id (SNAPSHOT_REF) or 'latest'. */
  restore(snapshot: string, target: string, call?: OffsiteCall): Promise<void>
  /** Creates the SSH key pair used for SFTP repositories when absent; answers its public half. */
  sshKey(): Promise<string>
}

/** What an error from the engine says, without secrets: thrown by every method. */
export class OffsiteError extends Error {
  constructor(
    message: string,
    readonly kind: 'wrong-password' | 'not-a-repository' | 'unreachable' | 'no-space' | 'failed' | 'missing-tool' = 'failed',
  ) {
    super(message)
    this.name = 'OffsiteError'
  }
}

/**
 * What a restore accepts as a snapshot: 'latest' or a hex id (the short 8-character form or
 * longer). Anything else, a word starting with '-' above all, would reach the engine as an option.
 */
export const SNAPSHOT_REF = /^(?:latest|[0-9a-f]{8,64})$/
