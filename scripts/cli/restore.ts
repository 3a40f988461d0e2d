import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { databasePath } from '../../core/db/sqlite.js'
import { archiveKind, BackupRefused } from '../../plugins/backups/extract.js'
import { restoreBackup } from '../../plugins/backups/restore.js'
import { passphraseFrom } from './backup.js'
import { type Command, CliError, EXIT, str } from './command.js'
import { knownSchemaVersions } from './known-schema.js'
import { fdHolders } from './proc.js'
import { createProgress } from './progress.js'

/** Processes other than this one with the database (or its WAL) open: a daemon without a lock, another tool. */
export function databaseHolders(dataDir: string): string[] {
  const db = databasePath(dataDir)
  const holders = fdHolders((link) => link === db || link === `${db}-wal`).filter((h) => h.pid !== process.pid)
  return [...new Set(holders.map((h) => `${h.command ?? '?'} (pid ${h.pid})`))]
}

export const restore: Command = {
  name: 'restore',
  summary: 'Replace the data folder with a backup (the daemon must be stopped)',
  usage: 'hearth restore FILE [--passphrase-file FILE] [--secrets FILE]',
  help: `Checks before touching anything: the manifest's SHA-256 of every file, SQLite's
integrity_check, and that no plugin's schema in the backup is newer than this Hearth's
(exit 4 when any fails). Then the data folder is renamed to <data>.before-restore-<time>
and the restored one takes its place; what the archive does not hold (other folders)
is copied over from the previous folder. The daemon removes the folder set
aside once it has started on the restored one, keeping the newest HEARTH_RESTORE_KEEP (1).
A backup of the previous release (a bare SQLite file from \`hearth backup\`) restores too;
its secrets come from --secrets FILE, or the current hearth.env is kept.
--passphrase-file F  the passphrase of an encrypted backup (else HEARTH_BACKUP_PASSPHRASE, or asked)
--secrets F          hearth.env to use when the backup has none
Refused (exit 3) while the daemon runs (its lock file), or while any process has the database open.`,
  options: { 'passphrase-file': { type: 'string' }, secrets: { type: 'string' } },
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    const file = resolve(args.positionals[0] as string)
    if (!existsSync(file)) throw new CliError(`${file} does not exist`)
    const lock = ctx.daemon()
    if (lock) throw new CliError(`the daemon is running (pid ${lock.pid}); stop it first`, EXIT.DAEMON)
    const holders = databaseHolders(ctx.config.dataDir)
    if (holders.length) throw new CliError(`the database is open in ${holders.join(', ')}; stop it first`, EXIT.DAEMON)
    const secrets = str(args, 'secrets')
    const encrypted = archiveKind(file) === 'encrypted'
    const passphrase = encrypted ? await passphraseFrom(args, ctx, { wanted: true, confirm: false }) : undefined
    const known = await knownSchemaVersions(ctx.config.pluginsDir)
    const bar = createProgress('restore')
    const total = statSync(file).size
    try {
      const result = await restoreBackup({
        file,
        dataDir: ctx.config.dataDir,
        known,
        passphrase,
        envFile: secrets ? resolve(secrets) : undefined,
        onBytes: (n) => bar.update(n, total),
      })
      bar.done()
      const from = result.manifest
        ? `Hearth ${result.manifest.hearth_version}, taken ${result.manifest.created_at}`
        : 'a bare database (previous release)'
      ctx.out(`restored ${file} (${from}) into ${ctx.config.dataDir}`)
      ctx.out(
        `schema: ${
          Object.entries(result.schema)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ') || 'empty'
        }`,
      )
      if (result.aside) ctx.out(`the previous data folder is kept at ${result.aside} until the daemon starts on the restored one`)
      if (result.secrets === 'kept') ctx.out('the backup holds no secrets: the current hearth.env was kept')
      if (result.secrets === 'none')
        ctx.out('the backup holds no secrets: new ones are generated at start (sessions end; stored credentials are unreadable)')
      if (result.unknownPlugins.length) ctx.out(`data of plugins not installed here is kept untouched: ${result.unknownPlugins.join(', ')}`)
      return EXIT.OK
    } catch (err) {
      bar.done('failed')
      if (err instanceof BackupRefused) throw new CliError(`backup refused: ${err.message}`, EXIT.REFUSED)
      throw err
    }
  },
}
