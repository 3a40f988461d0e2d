import type { ApiKeyRow } from '../../core/auth/api-keys.js'
import { publicAppPassword } from '../../core/auth/app-passwords.js'
import { AppPasswordBody } from '../../core/auth/schemas.js'
import { compileCheck } from '../../core/validation.js'
import { type Command, CliError, EXIT, str } from './command.js'
import type { Context } from './context.js'
import { apiUser, findUser, printList, withDb } from './direct.js'

/**
 * App passwords from the terminal: a device's CalDAV/CardDAV password for a user. They are that user's
 * `dav` keys, named after the device, so through a running daemon the admin key routes make, list and
 * revoke them (its key cache then forgets a revoked one at once).
 */
type AppPassword = ReturnType<typeof publicAppPassword> & { password?: string }
const row = (p: AppPassword) => [p.id, p.name, p.created_at, p.last_used_at ?? 'never used'].join('\t')
const fromKey = (k: ApiKeyRow | (Omit<ApiKeyRow, 'key_hash' | 'created_by'> & { key?: string })) => ({
  ...publicAppPassword(k as ApiKeyRow),
  ...('key' in k && k.key ? { password: k.key } : {}),
})
const userOption = { user: { type: 'string' } } as const
const USER_HELP = '--user  email or id of the device owner (default: the first owner)'

async function holder(ctx: Context, who: string | undefined): Promise<string | undefined> {
  if (!who) return undefined
  if (ctx.daemon()) return (await apiUser(await ctx.api(), who)).id
  return withDb(ctx, (s) => findUser(s.users, who).id)
}

const create: Command = {
  name: 'create',
  summary: 'Create an app password for a device and print it (shown this once)',
  usage: 'hearth app-passwords create NAME [--user USER] [--json]',
  help: `${USER_HELP}\nThe password is printed on the first line: type it, with the user's email, into the device's CalDAV/CardDAV account.`,
  options: { ...userOption, json: { type: 'boolean' } },
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    const name = args.positionals[0] as string
    compileCheck(AppPasswordBody)({ name })
    const uid = await holder(ctx, str(args, 'user'))
    let made: AppPassword
    if (ctx.daemon()) {
      const body = { scope: 'dav', label: name, ...(uid ? { user_id: uid } : {}) }
      made = fromKey(await (await ctx.api()).call<ApiKeyRow & { key: string }>('POST', '/admin/api-keys', body))
    } else {
      made = withDb(ctx, (s) => {
        const { row: key, key: password } = s.accounts.createKey(s.operator(), { userId: uid, scope: 'dav', label: name })
        return { ...publicAppPassword(key), password }
      })
    }
    if (args.values.json) ctx.out(JSON.stringify(made, null, 2))
    else ctx.out(`${made.password}\n${row(made)}`)
    return EXIT.OK
  },
}

const list: Command = {
  name: 'list',
  summary: "List a user's app passwords (id, name, created, last used)",
  usage: 'hearth app-passwords list [--user USER] [--json]',
  help: USER_HELP,
  options: { ...userOption, json: { type: 'boolean' } },
  async run(args, ctx) {
    const who = str(args, 'user')
    let items: AppPassword[]
    if (ctx.daemon()) {
      // Without --user the CLI acts as the first owner, whose own list this is.
      const uid = await holder(ctx, who)
      const api = await ctx.api()
      items = uid
        ? (await api.call<ApiKeyRow[]>('GET', `/admin/api-keys?scope=dav&user_id=${uid}`)).map(fromKey)
        : await api.call<AppPassword[]>('GET', '/auth/app-passwords')
    } else {
      items = withDb(ctx, (s) =>
        s.apiKeys.list({ userId: who ? findUser(s.users, who).id : s.operator().userId, scope: 'dav' }).map(fromKey),
      )
    }
    printList(ctx, args, items, row)
    return EXIT.OK
  },
}

const revoke: Command = {
  name: 'revoke',
  summary: 'Revoke an app password by id: the device is signed out',
  usage: 'hearth app-passwords revoke ID',
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    const id = args.positionals[0] as string
    // Only a dav key is an app password: another key's id is not revoked here.
    const dav = withDb(ctx, (s) => s.apiKeys.get(id))
    if (!dav || dav.scope !== 'dav' || dav.revoked_at) throw new CliError(`no active app password ${id}`)
    let revoked: AppPassword
    if (ctx.daemon()) revoked = fromKey(await (await ctx.api()).call<ApiKeyRow>('DELETE', `/admin/api-keys/${encodeURIComponent(id)}`))
    else revoked = withDb(ctx, (s) => fromKey(s.accounts.revokeKey(s.operator(), id)))
    ctx.out(`revoked\t${row(revoked)}`)
    return EXIT.OK
  },
}

export const appPasswords: Command = {
  name: 'app-passwords',
  summary: "Create, list and revoke app passwords (devices' CalDAV/CardDAV passwords)",
  usage: 'hearth app-passwords SUBCOMMAND',
  subcommands: [create, list, revoke],
}
