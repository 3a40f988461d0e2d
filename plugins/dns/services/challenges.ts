import type { HearthEvent } from '../../../core/plugin-api.js'
import type { ZoneRow } from '../store/zones.js'
import type { DnsContext } from './context.js'
import { publishNames } from './zone-data.js'

/**
 * ACME DNS-01 challenges answered by Hearth's own server, for the proxy's certificates (an event
 * contract, so the proxy plugin needs nothing of this one but the bus):
 * - `acme.zone.lookup` { name, served }: sets `served` when an authoritative zone holds `name`;
 * - `acme.challenge.set` / `acme.challenge.clear` { name, value, served }: adds or removes a TXT
 *   value at `name` (`_acme-challenge.<domain>`) and sets `served` when it did.
 * The TXT values live in memory only (ctx.challenges, TTL 60), beside the stored records of the name.
 */
interface ChallengeData {
  name: string
  value?: string
  served: boolean
}

export function challengeHandlers(ctx: DnsContext) {
  /** The authoritative zone holding a name: the most specific one. */
  const zoneOf = (name: string): ZoneRow | null => {
    let best: ZoneRow | null = null
    for (const zone of ctx.zones.authoritative()) {
      if ((name === zone.zone || name.endsWith(`.${zone.zone}`)) && (!best || zone.zone.length > best.zone.length)) best = zone
    }
    return best
  }
  const relative = (name: string, zone: ZoneRow) => (name === zone.zone ? '@' : name.slice(0, -(zone.zone.length + 1)))

  const change = (event: HearthEvent, add: boolean) => {
    const data = event.data as ChallengeData
    const name = String(data.name).toLowerCase().replace(/\.$/, '')
    const zone = zoneOf(name)
    if (!zone || typeof data.value !== 'string') return
    const values = (ctx.challenges.get(name) ?? []).filter((v) => v !== data.value)
    if (add) values.push(data.value)
    if (values.length) ctx.challenges.set(name, values)
    else ctx.challenges.delete(name)
    publishNames(ctx, zone, [relative(name, zone)])
    data.served = true
  }

  return [
    ctx.api.events.on('acme.zone.lookup', (event) => {
      const data = event.data as ChallengeData
      if (zoneOf(String(data.name).toLowerCase().replace(/\.$/, ''))) data.served = true
    }),
    ctx.api.events.on('acme.challenge.set', (event) => change(event, true)),
    ctx.api.events.on('acme.challenge.clear', (event) => change(event, false)),
  ]
}
