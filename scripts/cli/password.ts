import { readFileSync } from 'node:fs'
import { CliError, EXIT } from './command.js'
import { ask, interactive } from './prompt.js'

/**
 * A new password: the first line of `file` when given (scripts), else `fallback` (an environment
 * variable's value), else asked twice on the terminal without echo. Never an argument: the command
 * line shows in the process list and in shell history.
 */
export async function newPassword(file: string | undefined, fallback?: string): Promise<string> {
  if (file) {
    const first = readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? ''
    if (!first) throw new CliError(`${file} holds no password on its first line`, EXIT.USAGE)
    return first
  }
  if (fallback) return fallback
  if (!interactive()) throw new CliError('a password is needed: run this on a terminal, or give --password-file FILE', EXIT.USAGE)
  const password = await ask('Password: ', true)
  if (!password) throw new CliError('an empty password', EXIT.USAGE)
  if ((await ask('Password again: ', true)) !== password) throw new CliError('the passwords differ', EXIT.USAGE)
  return password
}
