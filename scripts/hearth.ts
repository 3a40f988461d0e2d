#!/usr/bin/env node
/**
 * The admin CLI: a dispatcher over one module per command (scripts/cli/<command>.ts).
 * `hearth --help`, `hearth COMMAND --help` and `hearth COMMAND SUBCOMMAND --help` describe
 * each; exit codes are in scripts/cli/command.ts (EXIT) and docs/operations.md.
 */
import { parseArgs } from 'node:util'
import { ConfigError } from '../core/config.js'
import { HttpError } from '../core/errors.js'
import { backup } from './cli/backup.js'
import { type Command, CliError, EXIT, helpText, UsageError } from './cli/command.js'
import { config } from './cli/config.js'
import { createContext } from './cli/context.js'
import { doctor } from './cli/doctor/index.js'
import { appPasswords } from './cli/app-passwords.js'
import { keys } from './cli/keys.js'
import { mcp } from './cli/mcp.js'
import { migrate } from './cli/migrate.js'
import { closePrompts } from './cli/prompt.js'
import { restore } from './cli/restore.js'
import { setup } from './cli/setup.js'
import { userErrorLine } from './cli/user-error.js'
import { users } from './cli/users.js'
import { VERSION } from '../core/version.js'

const root: Command = {
  name: 'hearth',
  summary: 'Administer a Hearth installation (the data folder is HEARTH_DATA_DIR).',
  usage: 'hearth COMMAND [SUBCOMMAND] [OPTIONS]',
  subcommands: [setup, users, keys, appPasswords, backup, restore, doctor, config, migrate, mcp],
  help: `While the daemon runs (it writes <data>/hearth.pid), commands that change data go through
its API with the system token; otherwise they work on the database directly.

exit codes:
  0   success
  1   failure (the operation failed; doctor found a failing check)
  2   usage error (unknown command or option, missing argument)
  3   the daemon's state forbids it (restore while it runs; the running daemon does not answer)
  4   backup refused (damaged, wrong passphrase, schema newer than this Hearth)
  78  invalid configuration`,
}

const HELP = new Set(['--help', '-h', 'help'])

async function dispatch(argv: string[]): Promise<number> {
  let cmd = root
  let rest = argv
  if (rest[0] === '--version') {
    process.stdout.write(`${VERSION}\n`)
    return EXIT.OK
  }
  // Walk down command → subcommand while the next word names one.
  while (cmd.subcommands) {
    const word = rest[0]
    if (word === undefined || HELP.has(word)) {
      const out = word === undefined ? process.stderr : process.stdout
      out.write(helpText(cmd))
      return word === undefined ? EXIT.USAGE : EXIT.OK
    }
    const next = cmd.subcommands.find((c) => c.name === word)
    if (!next)
      throw new UsageError(`unknown ${cmd === root ? 'command' : `${cmd.name} subcommand`} ${JSON.stringify(word)}\nusage: ${cmd.usage}`)
    cmd = next
    rest = rest.slice(1)
  }
  let parsed
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    })
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${cmd.usage}`)
  }
  if (parsed.values.help) {
    process.stdout.write(helpText(cmd))
    return EXIT.OK
  }
  const n = parsed.positionals.length
  if (n < (cmd.minArgs ?? 0) || n > (cmd.maxArgs ?? Infinity)) throw new UsageError(`usage: ${cmd.usage}`)
  return (cmd.run as NonNullable<Command['run']>)(parsed as never, createContext())
}

async function main(argv: string[]): Promise<number> {
  try {
    return await dispatch(argv)
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`hearth: ${err.message}\n`)
      return EXIT.USAGE
    }
    if (err instanceof CliError) {
      process.stderr.write(`hearth: ${err.message}\n`)
      return err.code
    }
    if (err instanceof ConfigError) {
      for (const problem of err.problems) process.stderr.write(`hearth: configuration error: ${problem}\n`)
      return EXIT.CONFIG
    }
    if (err instanceof HttpError) {
      process.stderr.write(`hearth: ${err.code}: ${err.message}\n`)
      return EXIT.FAILURE
    }
    const line = userErrorLine(err)
    if (line) {
      process.stderr.write(`hearth: ${line}\n`)
      return EXIT.FAILURE
    }
    // Not a mistake of the admin's: a bug, whose stack is what a report needs.
    process.stderr.write(`hearth: ${(err as Error).stack ?? err}\n`)
    return EXIT.FAILURE
  } finally {
    closePrompts()
  }
}

process.exitCode = await main(process.argv.slice(2))
