import { type DriverContext, HttpError, ToolMissingError } from '../../../core/plugin-api.js'
import { assertPort, byPortThenProto, type FirewallDriver, type FirewallProto } from '../driver.js'
import { type NftPortRule, parsePortRules } from './rules.js'

export interface NftOptions {
  /** nft binary (settings.nftPath). */
  nft: string
  /** our table in the inet family (settings.nftTable), default 'hearth'. */
  table: string
}

const TABLE_NAME = /^[a-z][a-z0-9_]{0,31}$/

export function nftOptions(settings: Record<string, unknown>): NftOptions {
  const table = typeof settings.nftTable === 'string' ? settings.nftTable : 'hearth'
  if (!TABLE_NAME.test(table)) throw new RangeError(`firewall: nftTable '${table}' is not a valid nft table name`)
  return { nft: typeof settings.nftPath === 'string' ? settings.nftPath : 'nft', table }
}

const firstLine = (text: string): string => text.trim().split('\n')[0] ?? ''

/**
 * Rules live in their own table `inet <table>`, chain `input` (filter hook,
 * priority 0, policy accept), one `<proto> dport <port> accept` rule per port.
 * nft is always called with an argument array, never through a shell.
 *
 * Limit (nftables semantics): an accept here ends evaluation of this chain
 * only; a drop in another table's input chain still drops. On a machine whose
 * own ruleset drops by default the admin must allow the port there too.
 */
export function createNftablesDriver(ctx: DriverContext, opts: NftOptions): FirewallDriver {
  const { nft, table } = opts
  let queue: Promise<unknown> = Promise.resolve()
  /** One change at a time: list-then-add must not interleave with another call. */
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn)
    queue = next.catch(() => undefined)
    return next
  }

  async function run(args: readonly string[], allowFail = false): Promise<{ code: number | null; stdout: string; stderr: string }> {
    let result: Awaited<ReturnType<typeof ctx.run>>
    try {
      result = await ctx.run(nft, args, { timeoutMs: 10_000 })
    } catch (err) {
      if (err instanceof ToolMissingError) throw new HttpError('SERVICE_UNAVAILABLE', 'nft is not installed', { tool: 'nft' })
      throw err
    }
    if (result.code !== 0 && !allowFail) {
      throw new HttpError(
        'SERVICE_UNAVAILABLE',
        `nft ${args.slice(0, 2).join(' ')} failed: ${firstLine(result.stderr) || `exit ${result.code}`}`,
        { tool: 'nft' },
      )
    }
    return result
  }

  async function ensureChain(): Promise<void> {
    // `add` is idempotent for an existing table or chain.
    await run(['add', 'table', 'inet', table])
    await run([
      'add',
      'chain',
      'inet',
      table,
      'input',
      '{',
      'type',
      'filter',
      'hook',
      'input',
      'priority',
      '0',
      ';',
      'policy',
      'accept',
      ';',
      '}',
    ])
  }

  async function rules(): Promise<NftPortRule[]> {
    const result = await run(['-j', 'list', 'chain', 'inet', table, 'input'], true)
    if (result.code !== 0) return [] // no table/chain yet: nothing opened
    return parsePortRules(result.stdout)
  }

  return {
    async openPort(port: number, proto: FirewallProto) {
      assertPort(port, proto)
      await serial(async () => {
        await ensureChain()
        if ((await rules()).some((r) => r.port === port && r.proto === proto)) return
        await run(['add', 'rule', 'inet', table, 'input', proto, 'dport', String(port), 'accept', 'comment', '"hearth"'])
      })
    },
    async closePort(port: number, proto: FirewallProto) {
      assertPort(port, proto)
      await serial(async () => {
        for (const rule of await rules()) {
          if (rule.port !== port || rule.proto !== proto) continue
          await run(['delete', 'rule', 'inet', table, 'input', 'handle', String(rule.handle)])
        }
      })
    },
    list() {
      return serial(async () => {
        const seen = new Map((await rules()).map((r) => [`${r.port}/${r.proto}`, { port: r.port, proto: r.proto }]))
        return [...seen.values()].sort(byPortThenProto)
      })
    },
  }
}
