import type { FirewallPort } from '../driver.js'

export interface NftPortRule extends FirewallPort {
  /** nft rule handle, for `delete rule ... handle N`. */
  handle: number
}

interface NftMatch {
  match?: { op?: string; left?: { payload?: { protocol?: string; field?: string } }; right?: unknown }
  accept?: null
}

interface NftItem {
  rule?: { handle?: number; expr?: NftMatch[] }
}

/**
 * Port rules of our chain from `nft -j list chain inet <table> input`:
 * rules of the exact shape `<tcp|udp> dport <n> accept` we add. Anything
 * else in the chain (added by hand) is left alone and not reported.
 */
export function parsePortRules(json: string): NftPortRule[] {
  const doc = JSON.parse(json) as { nftables?: NftItem[] }
  const rules: NftPortRule[] = []
  for (const item of doc.nftables ?? []) {
    const rule = item.rule
    if (!rule?.expr || typeof rule.handle !== 'number' || rule.expr.length !== 2) continue
    const [first, second] = rule.expr
    const payload = first.match?.left?.payload
    const port = first.match?.right
    const proto = payload?.protocol
    if (first.match?.op !== '==' || payload?.field !== 'dport' || typeof port !== 'number') continue
    if ((proto !== 'tcp' && proto !== 'udp') || !('accept' in second)) continue
    rules.push({ port, proto, handle: rule.handle })
  }
  return rules
}
