import dns2 from 'dns2'
import { HttpError } from '../../../core/plugin-api.js'
import type { ZoneRow } from '../store/zones.js'
import type { DnsContext } from './context.js'

/**
 * NS delegation check: asks each configured resolver (a real DNS query over
 * UDP, dns2's client) for the zone's NS set and compares it with the NS
 * records the zone holds here.
 * - verified: a resolver answered with every expected name server, or one
 *   of the name servers it named resolves (through it) to the expected IP,
 *   this instance's public IP as DDNS last saw it
 * - pending: resolvers answered, but not (yet) with ours
 * - failed: no resolver could answer, or the polling window passed unverified
 */
export interface NsCheck {
  verified: boolean
  ns_found: string[]
  expected_ns: string[]
  expected_ip: string
  propagation_status: ZoneRow['propagation_status']
  checked_at: string
}

const A_TYPE = 1
const NS_TYPE = 2

function parseResolver(spec: string): { host: string; port: number } {
  const m = /^\[(.+)\](?::(\d+))?$/.exec(spec) ?? /^([^:]+)(?::(\d+))?$/.exec(spec)
  return m ? { host: m[1] as string, port: Number(m[2] ?? 53) } : { host: spec, port: 53 }
}

type Answer = { type: number; name: string; ns?: string; address?: string }

/** One real query; null when the resolver did not answer. */
async function ask(resolver: string, name: string, type: 'NS' | 'A', timeoutMs: number): Promise<Answer[] | null> {
  const { host, port } = parseResolver(resolver)
  try {
    const answer = await dns2.UDPClient({ dns: host, port, timeout: timeoutMs })(name, type)
    return [...(answer.answers ?? []), ...(answer.authorities ?? [])] as Answer[]
  } catch {
    return null
  }
}

async function askNs(zone: string, resolver: string, timeoutMs: number): Promise<string[] | null> {
  const records = await ask(resolver, zone, 'NS', timeoutMs)
  return records
    ? records
        .filter((r) => r.type === NS_TYPE && r.name.toLowerCase() === zone && r.ns)
        .map((r) => (r.ns as string).toLowerCase().replace(/\.$/, ''))
    : null
}

/** Whether one of the name servers resolves to `ip` through the resolver. */
async function pointsAt(names: string[], ip: string, resolver: string, timeoutMs: number): Promise<boolean> {
  const answers = await Promise.all(names.map((n) => ask(resolver, n, 'A', timeoutMs)))
  return answers.some((a) => a?.some((r) => r.type === A_TYPE && r.address === ip))
}

export function nsVerifier(ctx: DnsContext) {
  const check = async (zone: ZoneRow): Promise<NsCheck> => {
    const expected = ctx.records
      .list(zone.id)
      .filter((r) => r.type === 'NS' && r.name === '@')
      .map((r) => r.content)
      .sort()
    const timeout = ctx.config.outboundTimeoutMs
    const expectedIp = ctx.ddns.lastGood()?.ip ?? ''
    const answers = await Promise.all(ctx.config.resolvers.map((r) => askNs(zone.zone, r, timeout)))
    const found = [...new Set(answers.flatMap((a) => a ?? []))].sort()
    let verified = expected.length > 0 && answers.some((a) => a !== null && expected.every((n) => a.includes(n)))
    for (const [i, names] of answers.entries()) {
      if (verified || !expectedIp || !names?.length) continue
      verified = await pointsAt(names, expectedIp, ctx.config.resolvers[i] as string, timeout)
    }
    const expired = ctx.api.now() - Date.parse(zone.created_at) > ctx.config.nsPollHours * 3600_000
    const status = verified ? 'verified' : answers.every((a) => a === null) || expired ? 'failed' : 'pending'
    const checked_at = ctx.iso()
    ctx.zones.setNs(zone.id, status, found, checked_at)
    if (status !== zone.propagation_status) {
      const data = { id: zone.id, zone: zone.zone, propagation_status: status, ns_found: found }
      ctx.api.events.emit('dns.zone.updated', { userId: zone.user_id, id: zone.id, data })
    }
    return { verified, ns_found: found, expected_ns: expected, expected_ip: expectedIp, propagation_status: status, checked_at }
  }

  return {
    check,
    async verify(userId: string, id: string): Promise<NsCheck> {
      const zone = ctx.zones.get(userId, id)
      if (!zone) throw new HttpError('NOT_FOUND', 'Zone not found')
      if (zone.mode !== 'authoritative') throw new HttpError('UNPROCESSABLE', 'NS verification applies to authoritative zones')
      return check(zone)
    },
    /** The polling job: every authoritative zone not verified yet and still inside its window. Returns how many remain. */
    async poll(): Promise<number> {
      const windowMs = ctx.config.nsPollHours * 3600_000
      const expired = (z: ZoneRow) => ctx.api.now() - Date.parse(z.created_at) > windowMs
      const open = ctx.zones
        .authoritative()
        .filter((z) => z.propagation_status !== 'verified' && !(z.propagation_status === 'failed' && expired(z)))
      let remaining = 0
      for (const zone of open) {
        const result = await check(zone)
        if (result.propagation_status !== 'verified' && !expired(zone)) remaining++
      }
      return remaining
    },
  }
}
export type NsVerifier = ReturnType<typeof nsVerifier>
