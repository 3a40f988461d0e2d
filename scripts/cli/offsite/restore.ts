import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { OffsiteError, SNAPSHOT_REF } from '../../../drivers/offsite/driver.js'
import { BackupRefused, installRestored, MANIFEST_ENTRY } from '../../../plugins/backups/public.js'
import { verifyRestoredCopy } from '../../../plugins/offsite/verify-copy.js'
import { type Command, CliError, EXIT, UsageError } from '../command.js'
import { knownSchemaVersions } from '../known-schema.js'
import { databaseHolders } from '../restore.js'
import { offsiteSetup } from './setup.js'

export const offsiteRestore: Command = {
  name: 'restore',
  summary: 'Replace the data folder with an off-site snapshot (the daemon must be stopped)',
  usage: 'hearth offsite restore [SNAPSHOT]',
  help: `SNAPSHOT is an id from \`hearth offsite snapshots\` (default: the latest). The snapshot is
restored beside the data folder and verified before anything is touched: checksums against
its manifest, integrity_check, row counts, and no plugin's schema newer than this Hearth's
(exit 4 when any fails). Then, as \`hearth restore\`: the data folder is renamed
<data>.before-restore-<time>, the restored one takes its place, and the daemon removes the
folder set aside once it has started on the restored one. On a new box give
HEARTH_OFFSITE_REPOSITORY and HEARTH_OFFSITE_PASSWORD from the emergency kit.`,
  maxArgs: 1,
  async run(args, ctx) {
    const snapshot = args.positionals[0] ?? 'latest'
    if (!SNAPSHOT_REF.test(snapshot))
      throw new UsageError(`"${snapshot}" is not a snapshot id: give a hex id from \`hearth offsite snapshots\` or latest`)
    const lock = ctx.daemon()
    if (lock) throw new CliError(`the daemon is running (pid ${lock.pid}); stop it first`, EXIT.DAEMON)
    const holders = databaseHolders(ctx.config.dataDir)
    if (holders.length) throw new CliError(`the database is open in ${holders.join(', ')}; stop it first`, EXIT.DAEMON)
    // restic's cache must not appear in a data folder that does not exist yet (a new box): it goes in a temporary folder.
    const cacheDir = mkdtempSync(join(tmpdir(), 'hearth-restic-cache-'))
    const setup = await offsiteSetup(ctx, { generatePassword: false, cacheDir }).catch((err: unknown) => {
      rmSync(cacheDir, { recursive: true, force: true })
      throw err
    })
    const dataDir = ctx.config.dataDir.replace(/\/+$/, '')
    mkdirSync(dirname(dataDir), { recursive: true })
    const staging = mkdtempSync(join(dirname(dataDir), `.${basename(dataDir)}.restore-`))
    const bar = setup.progress()
    try {
      await setup.driver.restore(snapshot, staging, bar)
      bar.done()
      const copy = join(staging, setup.paths.copyName)
      if (!existsSync(copy)) throw new BackupRefused('the snapshot holds no Hearth database copy')
      const verified = await verifyRestoredCopy(copy, await knownSchemaVersions(ctx.config.pluginsDir))
      // The copy's files become the data folder's; its manifest has served.
      rmSync(join(copy, MANIFEST_ENTRY))
      for (const name of readdirSync(copy)) renameSync(join(copy, name), join(staging, name))
      rmSync(copy, { recursive: true })
      const hasPhotos = existsSync(join(staging, setup.paths.photosName))
      const result = installRestored({
        staging,
        dataDir,
        source: `off-site snapshot ${snapshot}`,
        schema: verified.schema,
        replaces: hasPhotos ? [setup.paths.photosName] : [],
      })
      ctx.out(
        `restored off-site snapshot ${snapshot} (Hearth ${verified.manifest.hearth_version}, taken ${verified.manifest.created_at}) into ${dataDir}`,
      )
      if (result.aside) ctx.out(`the previous data folder is kept at ${result.aside} until the daemon starts on the restored one`)
      if (verified.unknownPlugins.length)
        ctx.out(`data of plugins not installed here is kept untouched: ${verified.unknownPlugins.join(', ')}`)
      return EXIT.OK
    } catch (err) {
      bar.done('failed')
      if (err instanceof BackupRefused) throw new CliError(`snapshot refused: ${err.message}`, EXIT.REFUSED)
      // The repository answered but the snapshot's data did not decrypt or verify: damaged, like a bad checksum.
      if (err instanceof OffsiteError && err.kind === 'failed') throw new CliError(`snapshot refused: ${err.message}`, EXIT.REFUSED)
      throw err
    } finally {
      rmSync(staging, { recursive: true, force: true })
      rmSync(cacheDir, { recursive: true, force: true })
    }
  },
}
