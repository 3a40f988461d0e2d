import type { PublicUser } from '../../core/auth/users.js'
import { type Command, CliError, EXIT } from './command.js'
import type { Context } from './context.js'
import { apiUser, findUser, printList, withDb } from './direct.js'

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
  summary: 'List users, reset a password, change a role or a tier',
  usage: 'hearth users SUBCOMMAND',
  subcommands: [list, resetToken, setRole, setTier],
}
