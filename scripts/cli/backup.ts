import { accessSync, constants, readFileSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { VERSION } from '../../core/version.js'
import { envFilePath, readSlice } from '../../core/config.js'
import { createBackup } from '../../plugins/backups/archive.js'
import { BackupsConfig } from '../../plugins/backups/config.js'
import { listScheduled } from '../../plugins/backups/schedule.js'
import { type Command, CliError, EXIT, type Parsed, str } from './command.js'
import type { Context } from './context.js'
import { createProgress } from './progress.js'
import { ask, interactive } from './prompt.js'

/** The passphrase from --passphrase-file, HEARTH_BACKUP_PASSPHRASE, or the terminal; undefined when none is wanted. */
export async function passphraseFrom(args: Parsed, ctx: Context, opts: { wanted: boolean; confirm: boolean }): Promise<string | undefined> {
  const file = str(args, 'passphrase-file')
  if (file) {
    const first = readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? ''
    if (!first) throw new CliError(`${file} holds no passphrase on its first line`, EXIT.USAGE)
    return first
  }
  if (!opts.wanted) return undefined
  if (ctx.env.HEARTH_BACKUP_PASSPHRASE) return ctx.env.HEARTH_BACKUP_PASSPHRASE
  if (!interactive()) throw new CliError('a passphrase is needed: --passphrase-file FILE or HEARTH_BACKUP_PASSPHRASE', EXIT.USAGE)
  const first = await ask('Passphrase: ', true)
  if (!first) throw new CliError('an empty passphrase', EXIT.USAGE)
  if (opts.confirm && (await ask('Passphrase again: ', true)) !== first) throw new CliError('the passphrases differ', EXIT.USAGE)
  return first
}

/** The folder a new archive goes into: there and writable, or a one-line reason. */
function checkDestination(destination: string): void {
  const folder = dirname(destination)
  let isFolder: boolean
  try {
    isFolder = statSync(folder).isDirectory()
  } catch {
    throw new CliError(`no folder ${folder}: create it first, or give a file in a folder that exists`)
  }
  if (!isFolder) throw new CliError(`${folder} is not a folder: give a file in a folder`)
  try {
    accessSync(folder, constants.W_OK)
  } catch {
    throw new CliError(`${folder} is not writable by this user: give a file in a folder it may write to`)
  }
}

/** `hearth backup list`: the scheduled backups in HEARTH_BACKUP_DIR, newest first. */
function listBackups(args: Parsed, ctx: Context): number {
  const dir = readSlice(BackupsConfig, ctx.sources, 'backups').dir || join(ctx.config.dataDir, 'backups')
  const found = listScheduled(dir)
  if (args.values.json) ctx.out(JSON.stringify(found, null, 2))
  else if (found.length === 0) ctx.out(`no scheduled backups in ${dir} (HEARTH_BACKUP_CRON schedules them)`)
  else for (const b of found) ctx.out([b.path, b.created_at, b.size_bytes, b.encrypted ? 'encrypted' : 'plain'].join('\t'))
  return EXIT.OK
}

export const backup: Command = {
  name: 'backup',
  summary: 'Write one archive with the database, hearth.env and a manifest; list the scheduled ones',
  usage: 'hearth backup FILE [--encrypt] [--passphrase-file FILE] | hearth backup list [--json]',
  help: `FILE gets a gzip'd tar: manifest.json (Hearth version, schema version of each plugin,
SHA-256 of each file), hearth.db (SQLite's online backup: consistent while the daemon writes)
and hearth.env (the secrets: keep the archive private; it is written with mode 0600).
--encrypt            encrypt with a passphrase (scrypt + AES-256-GCM), asked on a terminal
                     or read from HEARTH_BACKUP_PASSPHRASE
--passphrase-file F  encrypt with the first line of F
Safe while the daemon runs: it only reads the database.

hearth backup list prints the scheduled backups (HEARTH_BACKUP_CRON) in HEARTH_BACKUP_DIR
(default <data>/backups), newest first: path, created, bytes, encrypted or plain; --json as JSON.
(A backup written to a file named "list" is \`hearth backup ./list\`.)`,
  options: { encrypt: { type: 'boolean' }, 'passphrase-file': { type: 'string' }, json: { type: 'boolean' } },
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    if (args.positionals[0] === 'list') return listBackups(args, ctx)
    const destination = resolve(args.positionals[0] as string)
    checkDestination(destination)
    const passphrase = await passphraseFrom(args, ctx, { wanted: Boolean(args.values.encrypt), confirm: true })
    const config = ctx.ensureConfig()
    const db = ctx.openDb()
    const bars = { database: createProgress('database', { unit: 'pages' }), archive: createProgress('archive') }
    try {
      const { manifest, bytes } = await createBackup({
        db,
        envFile: envFilePath(config.dataDir),
        destination,
        version: VERSION,
        passphrase,
        onProgress: (p) => {
          if (p.phase === 'archive') bars.database.done()
          bars[p.phase].update(p.done, p.total)
        },
      })
      bars.database.done()
      bars.archive.done()
      const schema = Object.entries(manifest.schema)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')
      ctx.out(`backed up to ${destination} (${bytes} bytes${passphrase ? ', encrypted' : ''}; schema: ${schema})`)
      return EXIT.OK
    } finally {
      db.close()
    }
  },
}
