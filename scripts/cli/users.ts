import { InviteBody, RegisterBody, ResetBody } from '../../core/auth/schemas.js'
import type { PublicUser } from '../../core/auth/users.js'
import { compileCheck } from '../../core/validation.js'
import { type Command, CliError, EXIT, str } from './command.js'
import type { Context } from './context.js'
import { apiUser, coreServices, findUser, printList, withDb } from './direct.js'
import { newPassword } from './password.js'

const row = (u: PublicUser) => [u.id, u.email, u.role, u.tier, u.disabled ? 'disabled' : 'active'].join('\t')

async function listUsers(ctx: Context): Promise<PublicUser[]> {
  if (ctx.daemon()) return (await ctx.api()).call<PublicUser[]>('GET', '/admin/users')
  return withDb(ctx, ({ users }) => users.list().map(users.toPublic))
}

/** Changes role or tier: PATCH /admin/users/:id when the daemon runs, the same rules on the database otherwise. */
async function patchUser(ctx: Context, who: string, patch: { role?: 'owner' | 'admin' | 'user'; tier?: 'free' | 'pro' | null }) {
  if (ctx.daemon()) {
    const api = await ctx.api()
    return api.call<PublicUser>('PATCH', `/admin/users/${(await apiUser(api, who)).id}`, patch)
  }
  return withDb(ctx, ({ users, accounts, operator }) => users.toPublic(accounts.updateUser(operator(), findUser(users, who), patch)))
}

const list: Command = {
  name: 'list',
  summary: 'List the users (id, email, role, tier, state), tab-separated',
  usage: 'hearth users list [--json]',
  options: { json: { type: 'boolean' } },
  async run(args, ctx) {
    printList(ctx, args, await listUsers(ctx), row)
    return EXIT.OK
  },
}

const resetToken: Command = {
  name: 'reset-token',
  summary: 'Print a one-hour password-reset token for a user',
  usage: 'hearth users reset-token EMAIL',
  help: `The token is for POST /api/v1/auth/reset-password { token, new_password }.
Written to the database directly even while the daemon runs: the API has no route that
hands a reset token to anyone but its owner's mailbox, and the daemon keeps no cache of them.`,
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    const reset = withDb(ctx, (s) => s.auth.createResetToken(args.positionals[0] as string))
    if (!reset) throw new CliError(`no active user with email ${args.positionals[0]}`)
    ctx.out(`${reset.token}\n(valid until ${reset.expires_at}; POST /api/v1/auth/reset-password { token, new_password })`)
    return EXIT.OK
  },
}

const create: Command = {
  name: 'create',
  summary: 'Create a user (admin or user) with a password asked on the terminal',
  usage: 'hearth users create EMAIL [--role user|admin] [--name NAME] [--password-file FILE]',
  help: `The password is asked twice on the terminal (not echoed), or read from the first line of
--password-file; it is never given on the command line. The API's rules apply (email format, password
length, one account per email): through the daemon when it runs (an invitation, registered at once),
on the database otherwise. An owner is made with \`hearth users set-role USER owner\`.`,
  options: { role: { type: 'string' }, name: { type: 'string' }, 'password-file': { type: 'string' } },
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    const email = args.positionals[0] as string
    const role = str(args, 'role') ?? 'user'
    if (role !== 'user' && role !== 'admin') throw new CliError('--role must be user or admin', EXIT.USAGE)
    const name = str(args, 'name')
    compileCheck(InviteBody)({ email, role })
    const password = await newPassword(str(args, 'password-file'))
    const body = (token: string) => ({ token, password, ...(name ? { name } : {}) })
    let user: PublicUser
    if (ctx.daemon()) {
      const api = await ctx.api()
      const invitation = await api.call<{ token: string }>('POST', '/admin/invitations', { email, role })
      user = (await api.call<{ user: PublicUser }>('POST', '/auth/register', body(invitation.token))).user
    } else {
      const db = ctx.openDb()
      try {
        const { auth } = coreServices(db, ctx.ensureConfig())
        const registration = body(auth.invite({ email, role }, null).token)
        compileCheck(RegisterBody)(registration)
        user = (await auth.register(registration)).user
      } finally {
        db.close()
      }
    }
    ctx.out(row(user))
    return EXIT.OK
  },
}

const setPassword: Command = {
  name: 'set-password',
  summary: "Set a user's password, asked on the terminal; signs the user out everywhere",
  usage: 'hearth users set-password USER [--password-file FILE]',
  help: `USER is an email or an id. The password is asked twice on the terminal (not echoed), or read from
the first line of --password-file; it is never given on the command line. Every session of the user
ends. Through the daemon when it runs (POST /auth/reset-password with a one-use reset token).`,
  options: { 'password-file': { type: 'string' } },
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    const who = args.positionals[0] as string
    const target = ctx.daemon() ? await apiUser(await ctx.api(), who) : withDb(ctx, ({ users }) => users.toPublic(findUser(users, who)))
    if (target.disabled) throw new CliError(`${target.email} is disabled: enable the account first`)
    const password = await newPassword(str(args, 'password-file'))
    // A reset token is the one path that sets a password without the old one, the same as a forgotten password's.
    const reset = withDb(ctx, (s) => s.auth.createResetToken(target.email))
    if (!reset) throw new CliError(`no active user ${who}`)
    const body = { token: reset.token, new_password: password }
    compileCheck(ResetBody)(body)
    if (ctx.daemon()) await (await ctx.api()).call('POST', '/auth/reset-password', body)
    else await withDb(ctx, (s) => s.auth.resetPassword(body.token, body.new_password))
    ctx.out(`password set for ${target.email}; every session of the user ended`)
    return EXIT.OK
  },
}

const resetTwoFactor: Command = {
  name: 'reset-2fa',
  summary: "Turn a user's two-factor sign-in off (a lost phone, lost recovery codes); signs the user out everywhere",
  usage: 'hearth users reset-2fa USER',
  help: `USER is an email or an id. The user's authenticator secret and recovery codes are deleted, so the
next sign-in asks for the password alone, and every session of the user ends (a lost phone may hold
one). The user can set two-factor sign-in up again afterwards. Passkeys are kept: each is a way in of
its own, on a device that asks for its own unlock; the user deletes a lost device's passkey (and its
app password) once signed in. The count left is printed. Written to the database directly even while
the daemon runs: the daemon reads the second factor from the database at each sign-in.`,
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    const who = args.positionals[0] as string
    const { email, passkeys } = withDb(ctx, (s) => {
      const user = findUser(s.users, who)
      if (!s.secondFactor.remove(user.id)) throw new CliError(`${user.email} has no two-factor sign-in`)
      s.tokens.revokeAllForUser(user.id)
      return { email: user.email, passkeys: s.passkeys.count(user.id) }
    })
    ctx.out(`two-factor sign-in turned off for ${email}; every session of the user ended`)
    if (passkeys > 0)
      ctx.out(
        `${passkeys} passkey${passkeys === 1 ? '' : 's'} kept: a lost device's passkey still needs that device's unlock; the user deletes it once signed in`,
      )
    return EXIT.OK
  },
}

const ROLES = ['owner', 'admin', 'user'] as const
const setRole: Command = {
  name: 'set-role',
  summary: "Change a user's role (owner, admin, user)",
  usage: 'hearth users set-role USER ROLE',
  help: 'USER is an email or an id. The last owner cannot be demoted.',
  minArgs: 2,
  maxArgs: 2,
  async run(args, ctx) {
    const [who, role] = args.positionals as [string, string]
    if (!(ROLES as readonly string[]).includes(role)) throw new CliError(`role must be one of ${ROLES.join(', ')}`, EXIT.USAGE)
    ctx.out(row(await patchUser(ctx, who, { role: role as (typeof ROLES)[number] })))
    return EXIT.OK
  },
}

const setTier: Command = {
  name: 'set-tier',
  summary: "Change a user's tier (free, pro, or default: the instance's HEARTH_TIER)",
  usage: 'hearth users set-tier USER TIER',
  help: 'USER is an email or an id; TIER is free, pro or default.',
  minArgs: 2,
  maxArgs: 2,
  async run(args, ctx) {
    const [who, tier] = args.positionals as [string, string]
    if (!['free', 'pro', 'default'].includes(tier)) throw new CliError('tier must be free, pro or default', EXIT.USAGE)
    ctx.out(row(await patchUser(ctx, who, { tier: tier === 'default' ? null : (tier as 'free' | 'pro') })))
    return EXIT.OK
  },
}

export const users: Command = {
  name: 'users',
  summary: 'List and create users, set a password, reset two-factor sign-in, change a role or a tier',
  usage: 'hearth users SUBCOMMAND',
  subcommands: [list, create, setPassword, resetToken, resetTwoFactor, setRole, setTier],
}
