import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import type { OffsiteDriver, OffsiteKeep, OffsiteProgress } from '../../drivers/offsite/driver.js'
import { withoutSecrets } from '../../lib/url-credentials.js'
import { offsitePaths } from './paths.js'
import { snapshotTags, stageSnapshot } from './stage.js'
import type { StatusStore } from './status-store.js'
import { verifyRestoredCopy } from './verify-copy.js'

export type Operation = 'run' | 'check' | 'drill'

export interface OperationsDeps {
  /** Runs `fn` with the engine (the HAL's active driver in the daemon, a driver made on the spot in the CLI). */
  withDriver<R>(fn: (driver: OffsiteDriver) => Promise<R>): Promise<R>
  db: Database.Database
  dataDir: string
  version: string
  keep: OffsiteKeep
  checkReadPercent: number
  store: StatusStore
  /** The highest migration this installation has per plugin: a drill of a newer snapshot fails. */
  known(): Promise<Record<string, number>> | Record<string, number>
  /** Secrets no recorded message may hold. */
  secrets: string[]
  now(): number
  onProgress?(operation: Operation, p: OffsiteProgress | { stage: 'stage' | 'verify' | 'forget' }): void
  signal?: AbortSignal
}

export interface OperationResult {
  ok: boolean
  error: string | null
  snapshot_id?: string | null
}

/**
 * The three off-site operations, each recording its outcome (never a secret) in the status file:
 * a run (stage a consistent copy, send it, apply retention), a check (the repository's structure and
 * data), a drill (restore the latest snapshot into a temporary folder and verify it like a restore).
 */
export function createOperations(deps: OperationsDeps) {
  const iso = () => new Date(deps.now()).toISOString()
  const clean = (err: unknown) => withoutSecrets((err as Error)?.message ?? String(err), deps.secrets)
  const call = (op: Operation) => ({ signal: deps.signal, onProgress: (p: OffsiteProgress) => deps.onProgress?.(op, p) })

  async function run(): Promise<OperationResult> {
    const at = iso()
    try {
      const summary = await deps.withDriver(async (d) => {
        await d.init(call('run'))
        deps.onProgress?.('run', { stage: 'stage' })
        const staged = await stageSnapshot(deps.db, deps.dataDir, deps.version)
        try {
          const s = await d.backup({ cwd: deps.dataDir, paths: staged.paths, tags: snapshotTags(staged.manifest) }, call('run'))
          deps.onProgress?.('run', { stage: 'forget' })
          await d.forget(deps.keep, { tag: 'hearth' }, call('run'))
          return s
        } finally {
          staged.remove()
        }
      })
      deps.store.record('offsite', {
        last_at: at,
        ok: true,
        error: null,
        snapshot_id: summary.snapshot_id,
        size_bytes: summary.bytes_processed,
        bytes_added: summary.bytes_added,
      })
      return { ok: true, error: null, snapshot_id: summary.snapshot_id }
    } catch (err) {
      deps.store.record('offsite', { last_at: at, ok: false, error: clean(err) })
      return { ok: false, error: clean(err) }
    }
  }

  async function check(): Promise<OperationResult> {
    const at = iso()
    try {
      const r = await deps.withDriver((d) => d.check({ readDataPercent: deps.checkReadPercent }, call('check')))
      const error = r.ok ? null : withoutSecrets(r.errors.join('; '), deps.secrets)
      deps.store.record('check', { last_at: at, ok: r.ok, error })
      return { ok: r.ok, error }
    } catch (err) {
      deps.store.record('check', { last_at: at, ok: false, error: clean(err) })
      return { ok: false, error: clean(err) }
    }
  }

  async function drill(): Promise<OperationResult> {
    const at = iso()
    const dir = offsitePaths(deps.dataDir).dir
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const target = mkdtempSync(join(dir, 'drill-'))
    let snapshotId: string | null = null
    try {
      await deps.withDriver(async (d) => {
        const latest = (await d.snapshots({ tag: 'hearth' }, call('drill'))).at(-1)
        if (!latest) throw new Error('the repository holds no Hearth snapshot yet: run one first')
        snapshotId = latest.short_id
        await d.restore(latest.id, target, call('drill'))
      })
      deps.onProgress?.('drill', { stage: 'verify' })
      const copy = join(target, offsitePaths(deps.dataDir).copyName)
      if (!existsSync(copy)) throw new Error('the snapshot holds no database copy')
      await verifyRestoredCopy(copy, await deps.known())
      deps.store.record('drill', { last_at: at, ok: true, error: null, snapshot_id: snapshotId })
      return { ok: true, error: null, snapshot_id: snapshotId }
    } catch (err) {
      deps.store.record('drill', { last_at: at, ok: false, error: clean(err), snapshot_id: snapshotId })
      return { ok: false, error: clean(err), snapshot_id: snapshotId }
    } finally {
      rmSync(target, { recursive: true, force: true })
    }
  }

  return { run, check, drill }
}
export type Operations = ReturnType<typeof createOperations>
