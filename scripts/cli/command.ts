import type { ParseArgsConfig } from 'node:util'
import type { Context } from './context.js'

/** Exit codes of every command (docs/operations.md "Exit codes"). */
export const EXIT = {
  OK: 0,
  /** The operation failed, or doctor found a failing check. */
  FAILURE: 1,
  /** Bad command line: unknown command or option, missing argument. */
  USAGE: 2,
  /** The daemon's state forbids it: restore while it runs, or the running daemon cannot be reached. */
  DAEMON: 3,
  /** A backup was refused: damaged, wrong passphrase, newer schema. */
  REFUSED: 4,
  /** The configuration (environment or hearth.env) is invalid. */
  CONFIG: 78,
} as const

export class UsageError extends Error {}

/** A failure with its exit code; the message is printed as `hearth: <message>`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: number = EXIT.FAILURE,
  ) {
    super(message)
  }
}

export type Options = NonNullable<ParseArgsConfig['options']>

export interface Parsed {
  values: Record<string, string | boolean | undefined>
  positionals: string[]
}

export interface Command {
  name: string
  /** One line for the command list. */
  summary: string
  /** The synopsis, e.g. `hearth backup FILE [--encrypt]`. */
  usage: string
  /** Options, arguments, examples and behaviour, printed by --help. */
  help?: string
  options?: Options
  /** Positional arguments required (fewer is a usage error). */
  minArgs?: number
  maxArgs?: number
  subcommands?: Command[]
  run?(args: Parsed, ctx: Context): Promise<number>
}

export const helpText = (cmd: Command): string => {
  const lines = [`usage: ${cmd.usage}`, '', cmd.summary]
  if (cmd.subcommands?.length) {
    lines.push('', 'subcommands:')
    const width = Math.max(...cmd.subcommands.map((s) => s.name.length))
    for (const s of cmd.subcommands) lines.push(`  ${s.name.padEnd(width)}  ${s.summary}`)
    lines.push('', `Run \`${cmd.name === 'hearth' ? 'hearth COMMAND' : `hearth ${cmd.name} SUBCOMMAND`} --help\` for one of them.`)
  }
  if (cmd.help) lines.push('', cmd.help.trim())
  return `${lines.join('\n')}\n`
}

/** A string option's value, or undefined. */
export const str = (args: Parsed, name: string): string | undefined => {
  const v = args.values[name]
  return typeof v === 'string' ? v : undefined
}
