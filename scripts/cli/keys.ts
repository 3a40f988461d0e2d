import { publicKey } from '../../core/auth/api-keys.js'
import type { KeyScope } from '../../core/auth/context.js'
import { KeyScope as KeyScopeSchema } from '../../core/auth/schemas.js'
import { type Command, CliError, EXIT, str } from './command.js'
import type { Context } from './context.js'
import { apiUser, findUser, printList, withDb } from './direct.js'

type Key = ReturnType<typeof publicKey> & { key?: string }
/** The scopes the API accepts (its schema's enum): the CLI offers the same ones. */
const SCOPES = (KeyScopeSchema as unknown as { enum: KeyScope[] }).enum
type Scope = KeyScope

const row = (k: Key) => [k.id, k.key_prefix, k.scope, k.user_id, k.label ?? '', k.revoked_at ? 'revoked' : 'active'].join('\t')

function scopeOf(value: string | undefined): Scope | undefined {
  if (value === undefined) return undefined
  if (!(SCOPES as readonly string[]).includes(value)) throw new CliError(`--scope must be one of ${SCOPES.join(', ')}`, EXIT.USAGE)
  return value as Scope
}

async function userId(ctx: Context, who: string | undefined): Promise<string | undefined> {
  if (!who) return undefined
  if (ctx.daemon()) return (await apiUser(await ctx.api(), who)).id
  return withDb(ctx, (s) => findUser(s.users, who).id)
}

const create: Command = {
  name: 'create',
  summary: 'Create an API key and print it (shown this once)',
  usage: 'hearth keys create --user USER [--scope agent|system|sync|dav] [--label TEXT] [--json]',
  help: `--user   email or id of the key's owner (default: the first owner)
--scope  agent (default): records, and reads of DNS, storage and network, as its owner; system: every
         route, may act for users up to its owner's role (only owners make them); sync: records;
         dav: CalDAV/CardDAV only, as its owner (the password of a phone's or a calendar app's account)
--label  a name to recognise the key by
The key is printed on the first line; Hearth keeps only its SHA-256.`,
  options: { user: { type: 'string' }, scope: { type: 'string' }, label: { type: 'string' }, json: { type: 'boolean' } },
  async run(args, ctx) {
    const scope = scopeOf(str(args, 'scope')) ?? 'agent'
    const label = str(args, 'label') ?? null
    let key: Key
    if (ctx.daemon()) {
      const uid = await userId(ctx, str(args, 'user'))
      key = await (
        await ctx.api()
      ).call<Key>('POST', '/admin/api-keys', { scope, ...(label ? { label } : {}), ...(uid ? { user_id: uid } : {}) })
    } else {
      key = withDb(ctx, (s) => {
        const who = str(args, 'user')
        const created = s.accounts.createKey(s.operator(), { userId: who ? findUser(s.users, who).id : undefined, scope, label })
        return { ...publicKey(created.row), key: created.key }
      })
    }
    if (args.values.json) ctx.out(JSON.stringify(key, null, 2))
    else ctx.out(`${key.key}\n${row(key)}`)
    return EXIT.OK
  },
}

const list: Command = {
  name: 'list',
  summary: 'List active API keys (id, prefix, scope, user id, label, state)',
  usage: 'hearth keys list [--user USER] [--scope SCOPE] [--json]',
  options: { user: { type: 'string' }, scope: { type: 'string' }, json: { type: 'boolean' } },
  async run(args, ctx) {
    const scope = scopeOf(str(args, 'scope'))
    const uid = await userId(ctx, str(args, 'user'))
    let keys: Key[]
    if (ctx.daemon()) {
      const q = new URLSearchParams({ ...(uid ? { user_id: uid } : {}), ...(scope ? { scope } : {}) }).toString()
      keys = await (await ctx.api()).call<Key[]>('GET', `/admin/api-keys${q ? `?${q}` : ''}`)
    } else keys = withDb(ctx, (s) => s.apiKeys.list({ userId: uid, scope }).map(publicKey))
    printList(ctx, args, keys, row)
    return EXIT.OK
  },
}

const revoke: Command = {
  name: 'revoke',
  summary: 'Revoke an API key by id',
  usage: 'hearth keys revoke ID',
  help: 'While the daemon runs, live connections made with the key close at once.',
  minArgs: 1,
  maxArgs: 1,
  async run(args, ctx) {
    const id = args.positionals[0] as string
    let key: Key
    if (ctx.daemon()) key = await (await ctx.api()).call<Key>('DELETE', `/admin/api-keys/${encodeURIComponent(id)}`)
    else key = withDb(ctx, (s) => publicKey(s.accounts.revokeKey(s.operator(), id)))
    ctx.out(row(key))
    return EXIT.OK
  },
}

export const keys: Command = {
  name: 'keys',
  summary: 'Create, list and revoke API keys',
  usage: 'hearth keys SUBCOMMAND',
  subcommands: [create, list, revoke],
}
