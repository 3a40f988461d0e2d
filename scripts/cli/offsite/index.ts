import { OffsiteError } from '../../../drivers/offsite/driver.js'
import type { Operation } from '../../../plugins/offsite/operations.js'
import { type Command, CliError, EXIT } from '../command.js'
import { offsiteRestore } from './restore.js'
import { offsiteSetup } from './setup.js'

function operation(name: Operation, summary: string, help: string): Command {
  return {
    name,
    summary,
    usage: `hearth offsite ${name}`,
    help,
    maxArgs: 0,
    async run(_args, ctx) {
      const setup = await offsiteSetup(ctx, { generatePassword: name === 'run' })
      const { ops, close } = setup.operations()
      try {
        const r = await ops[name]()
        if (!r.ok) throw new CliError(`off-site ${name} failed: ${r.error}`)
        ctx.out(
          name === 'run'
            ? `snapshot ${r.snapshot_id} sent (${setup.store.read().offsite.size_bytes ?? 0} bytes, ${setup.store.read().offsite.bytes_added ?? 0} new)`
            : name === 'check'
              ? 'the repository is sound'
              : `snapshot ${r.snapshot_id} restored and verified (checksums, integrity_check, row counts)`,
        )
        return EXIT.OK
      } finally {
        close()
      }
    },
  }
}

const snapshots: Command = {
  name: 'snapshots',
  summary: "List the repository's Hearth snapshots, oldest first",
  usage: 'hearth offsite snapshots [--json]',
  options: { json: { type: 'boolean' } },
  maxArgs: 0,
  async run(args, ctx) {
    const { driver } = await offsiteSetup(ctx, { generatePassword: false })
    const list = await driver.snapshots({ tag: 'hearth' })
    if (args.values.json) ctx.out(JSON.stringify(list, null, 2))
    else if (!list.length) ctx.out('no Hearth snapshot in the repository yet (`hearth offsite run` sends one)')
    else for (const s of list) ctx.out([s.short_id, s.time, s.tags.filter((t) => t !== 'hearth').join(' ')].join('\t'))
    return EXIT.OK
  },
}

const kit: Command = {
  name: 'kit',
  summary: 'Print the emergency kit: the repository and its password (once)',
  usage: 'hearth offsite kit [--again]',
  help: `Without the password the off-site copy cannot be read by anyone, you included. Print it,
keep it away from this box (on paper, in a password manager), and GET /admin/protection stops
asking for it. It is printed once; --again prints it again.`,
  options: { again: { type: 'boolean' } },
  maxArgs: 0,
  async run(args, ctx) {
    const setup = await offsiteSetup(ctx, { generatePassword: true })
    const shown = setup.store.read().kit_shown_at
    if (shown && !args.values.again) throw new CliError(`the emergency kit was shown at ${shown}; --again prints it again`)
    ctx.out('Hearth emergency kit: keep this away from the box.')
    ctx.out(`HEARTH_OFFSITE_REPOSITORY=${setup.repository}`)
    ctx.out(`HEARTH_OFFSITE_PASSWORD=${setup.password}`)
    ctx.out('To restore on a new box: install Hearth and restic, put these two lines in the environment,')
    ctx.out('(for SFTP: `hearth offsite key`, and add the key to the server), then `hearth offsite restore`.')
    setup.store.kitShown(new Date().toISOString())
    return EXIT.OK
  },
}

const key: Command = {
  name: 'key',
  summary: 'Print the public SSH key SFTP repositories must accept (created when absent)',
  usage: 'hearth offsite key',
  help: `The key pair lives in <data>/offsite/ (id_ed25519). Add the printed line to the
~/.ssh/authorized_keys of the repository's user on the SFTP server. The server's host key is
trusted on first connection and held to afterwards (<data>/offsite/known_hosts).`,
  maxArgs: 0,
  async run(_args, ctx) {
    const { driver } = await offsiteSetup(ctx, { generatePassword: true })
    ctx.out(await driver.sshKey())
    return EXIT.OK
  },
}

/** The engine's errors (wrong password, unreachable server, missing restic) are the admin's to fix: one line, exit 1. */
function guarded(cmd: Command): Command {
  const run = cmd.run
  if (!run) return cmd
  return {
    ...cmd,
    async run(args, ctx) {
      try {
        return await run(args, ctx)
      } catch (err) {
        if (err instanceof OffsiteError) throw new CliError(err.message)
        throw err
      }
    },
  }
}

export const offsite: Command = {
  name: 'offsite',
  summary: 'Off-site protection with restic: run, list, check, drill, restore, emergency kit',
  usage: 'hearth offsite SUBCOMMAND',
  help: `HEARTH_OFFSITE_REPOSITORY names any restic repository (a folder, sftp:user@host:/path,
rest:..., s3:...); HEARTH_OFFSITE_PASSWORD is generated into hearth.env when absent. The
commands work whether the daemon runs or not (restore needs it stopped). docs/operations.md,
"Off-site protection".`,
  subcommands: [
    operation(
      'run',
      'Send a snapshot now (a consistent database copy, hearth.env, the photos folder)',
      'Creates the repository on first use; refuses one that this password does not open. Applies HEARTH_OFFSITE_KEEP afterwards.',
    ),
    snapshots,
    operation('check', 'Check the repository (structure, and HEARTH_OFFSITE_CHECK_READ_PERCENT of its data)', ''),
    operation(
      'drill',
      'Restore the latest snapshot into a temporary folder and verify it',
      'Checksums against the manifest, integrity_check, and every row count as the snapshot recorded it. The data folder is not touched.',
    ),
    offsiteRestore,
    kit,
    key,
  ].map(guarded),
}
