import { readFileSync } from 'node:fs'
import { SetupBody } from '../../core/auth/schemas.js'
import type { PublicUser } from '../../core/auth/users.js'
import { compileCheck } from '../../core/validation.js'
import { type Command, CliError, EXIT, str } from './command.js'
import { coreServices } from './direct.js'
import { ask, interactive } from './prompt.js'

export const setup: Command = {
  name: 'setup',
  summary: 'Create the owner (the first user) without a browser',
  usage: 'hearth setup --email EMAIL [--name NAME] [--password-file FILE]',
  help: `The password comes from --password-file (its first line), from HEARTH_SETUP_PASSWORD, or is
asked on a terminal; --password PASSWORD works too but shows in the process list.
Missing values are asked on a terminal; without one they are a usage error (exit 2).
Fails (exit 1) once a user exists. Through the API when the daemon runs (POST /auth/setup).`,
  options: {
    email: { type: 'string' },
    name: { type: 'string' },
    password: { type: 'string' },
    'password-file': { type: 'string' },
  },
  maxArgs: 0,
  async run(args, ctx) {
    const tty = interactive()
    let email = str(args, 'email')
    if (!email && tty) email = (await ask('Owner email: ')).trim()
    if (!email) throw new CliError('--email is required (no terminal to ask on)', EXIT.USAGE)
    const file = str(args, 'password-file')
    let password = str(args, 'password') ?? (file ? (readFileSync(file, 'utf8').split(/\r?\n/)[0] ?? '') : ctx.env.HEARTH_SETUP_PASSWORD)
    if (!password && tty) {
      password = await ask('Password: ', true)
      if ((await ask('Password again: ', true)) !== password) throw new CliError('the passwords differ')
    }
    if (!password) throw new CliError('a password is required: --password-file FILE or HEARTH_SETUP_PASSWORD', EXIT.USAGE)
    let name = str(args, 'name')
    if (name === undefined && tty && !str(args, 'email')) name = (await ask('Name (optional): ')).trim() || undefined
    const body = { email, password, ...(name ? { name } : {}) }

    let user: PublicUser
    if (ctx.daemon()) user = (await (await ctx.api()).call<{ user: PublicUser }>('POST', '/auth/setup', body)).user
    else {
      const db = ctx.openDb()
      try {
        // The API's own body rules (email format, password length).
        compileCheck(SetupBody)(body)
        user = (await coreServices(db, ctx.ensureConfig()).auth.setup(body)).user
      } finally {
        db.close()
      }
    }
    ctx.out(`owner created: ${user.email} (${user.id})`)
    return EXIT.OK
  },
}
