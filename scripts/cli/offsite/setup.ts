import { readSlice } from '../../../core/config.js'
import { runCommand } from '../../../core/hal/command.js'
import { VERSION } from '../../../core/version.js'
import type { OffsiteDriver, OffsiteProgress } from '../../../drivers/offsite/driver.js'
import restic, { sftpRepositoryProblem } from '../../../drivers/offsite/restic/index.js'
import { OffsiteConfig } from '../../../plugins/offsite/config.js'
import { parseKeep } from '../../../plugins/offsite/keep.js'
import { createOperations, type Operations } from '../../../plugins/offsite/operations.js'
import { ensureOffsitePassword } from '../../../plugins/offsite/password.js'
import { offsitePaths } from '../../../plugins/offsite/paths.js'
import { createStatusStore, type StatusStore } from '../../../plugins/offsite/status-store.js'
import { CliError, EXIT } from '../command.js'
import type { Context } from '../context.js'
import { knownSchemaVersions } from '../known-schema.js'
import { createProgress, type Progress } from '../progress.js'

export interface OffsiteSetup {
  repository: string
  password: string
  dataDir: string
  driver: OffsiteDriver
  store: StatusStore
  paths: ReturnType<typeof offsitePaths>
  /** The operations, reading the database through `db` (a read-only connection: the daemon may run). */
  operations(): { ops: Operations; close(): void }
  /** A progress bar on stderr for the engine's reports. */
  progress(): { onProgress(p: OffsiteProgress): void; done(message?: string): void }
}

/**
 * The settings the daemon's off-site plugin reads, and the same driver and operations, made on
 * the spot: the commands work whether the daemon runs or not (the database is only read, through
 * SQLite's online backup). `generatePassword`: a run or the kit may create the password; a restore
 * on a new box must be given the kit's.
 */
export async function offsiteSetup(ctx: Context, opts: { generatePassword: boolean; cacheDir?: string }): Promise<OffsiteSetup> {
  const cfg = readSlice(OffsiteConfig, ctx.sources, 'offsite')
  if (!cfg.repository)
    throw new CliError('no off-site repository: set HEARTH_OFFSITE_REPOSITORY (in <data>/hearth.env or the environment)', EXIT.CONFIG)
  const refused = sftpRepositoryProblem(cfg.repository)
  if (refused) throw new CliError(`HEARTH_OFFSITE_REPOSITORY: ${refused}`, EXIT.CONFIG)
  const keep = parseKeep(cfg.keep)
  if (typeof keep === 'string') throw new CliError(`HEARTH_OFFSITE_KEEP: ${keep}`, EXIT.CONFIG)
  const dataDir = opts.generatePassword ? ctx.ensureConfig().dataDir : ctx.config.dataDir
  let password = cfg.password
  if (!password && opts.generatePassword) password = ensureOffsitePassword(dataDir, '')
  if (!password)
    throw new CliError(
      'no repository password: set HEARTH_OFFSITE_PASSWORD to the one in the emergency kit (`hearth offsite kit`)',
      EXIT.CONFIG,
    )
  const paths = offsitePaths(dataDir)
  const silent = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, child: () => silent } as never
  const driver = await restic.create({
    run: runCommand,
    log: silent,
    dataDir,
    now: Date.now,
    settings: { bin: cfg.bin, repository: cfg.repository, password, keyFile: paths.keyFile, cacheDir: opts.cacheDir ?? paths.cacheDir },
  })
  const store = createStatusStore(paths.status)
  let bar: Progress | null = null
  const progress = () => ({
    onProgress(p: OffsiteProgress) {
      bar ??= createProgress(p.operation === 'backup' ? 'off-site' : p.operation)
      if (p.bytes_total > 0) bar.update(p.bytes_done, p.bytes_total)
    },
    done(message?: string) {
      bar?.done(message)
      bar = null
    },
  })
  return {
    repository: cfg.repository,
    password,
    dataDir,
    driver,
    store,
    paths,
    progress,
    operations() {
      const db = ctx.readDb()
      const bars = progress()
      const ops = createOperations({
        withDriver: (fn) => fn(driver),
        db,
        dataDir,
        version: VERSION,
        keep,
        checkReadPercent: cfg.checkReadPercent,
        store,
        known: () => knownSchemaVersions(ctx.config.pluginsDir),
        secrets: [password],
        now: Date.now,
        onProgress: (_op, p) => ('fraction' in p ? bars.onProgress(p) : bars.done()),
      })
      return {
        ops,
        close() {
          bars.done()
          db.close()
        },
      }
    },
  }
}
